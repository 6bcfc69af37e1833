/**
 * `tai record read ID [--offset N] [--limit N]`, `tai record search TEXT`,
 * `tai record gc [--max-age-days N] [--max-mb N]`: the claim check's records,
 * read straight from the state database (no cockpit needed; the database is
 * shared by every tai process on the machine). `read` prints the page on
 * stdout and, on stderr, where the next one starts: sanitized as `tai spawn`
 * prints a result (src/cli/output.ts), its exact characters with --raw or
 * --json. Exit 0, 1 when there is no such record, 64 for a bad command line.
 */
import { join } from 'node:path';
import { RECORDS_MAX_AGE_DAYS, RECORDS_MAX_CHARS, RecordStore } from '../io/storage/records.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../io/storage/state-db.js';
import { processIo, type CliIo } from './spawn.js';
import { parseCommandLine, USAGE_EXIT } from './command-line.js';
import { CliOutput, field } from './output.js';

const USAGE =
  'usage: tai record read ID [--offset N] [--limit N] [--json | --raw]\n' +
  '       tai record search TEXT... [--limit N] [--json]\n' +
  `       tai record gc [--max-age-days N (default ${RECORDS_MAX_AGE_DAYS})] [--max-mb N (default ${RECORDS_MAX_CHARS / 1_000_000})]\n` +
  'A page is printed sanitized (only colours, newline and tab survive; colours only to a terminal);\n' +
  '--raw prints its exact text, --json the page as escaped JSON.\n';

const DAY_MS = 86_400_000;

/** Runs `tai record ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const [sub, ...rest] = args;
  const parsed = parseCommandLine('record', rest, {
    offset: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    raw: { type: 'boolean' },
    'max-age-days': { type: 'string' },
    'max-mb': { type: 'string' },
  }, USAGE, (t) => out.warn(t));
  if (!parsed) return USAGE_EXIT;
  const o = parsed.values;
  if (o.json && o.raw) {
    out.warn(`tai record: --json and --raw are two forms of the page: give one\n${USAGE}`);
    return USAGE_EXIT;
  }
  const numbers = [o.offset, o.limit, o['max-age-days'], o['max-mb']].map((v) => (v === undefined ? undefined : Number(v)));
  if (numbers.some((n) => n !== undefined && !(Number.isFinite(n) && n >= 0))) {
    out.warn(`tai record: numbers must be zero or more\n${USAGE}`);
    return USAGE_EXIT;
  }
  const [offset, limit, maxAgeDays, maxMb] = numbers;
  if (sub !== 'read' && sub !== 'search' && sub !== 'gc') {
    out.warn(USAGE);
    return USAGE_EXIT;
  }
  if ((sub === 'read' && parsed.positionals.length !== 1) || (sub === 'search' && parsed.positionals.length === 0)) {
    out.warn(USAGE);
    return USAGE_EXIT;
  }
  const db = openStateDb(join(stateDir(io.env), STATE_DB_FILE));
  try {
    const store = new RecordStore(db);
    switch (sub) {
      case 'read': {
        const id = parsed.positionals[0] ?? '';
        const page = store.read(id, offset, limit);
        if (!page) {
          out.warn(`tai record: no such record: ${field(id)}\n`);
          return 1;
        }
        if (o.json) out.json(page);
        else {
          out.result(page.text, o.raw === true);
          out.warn(
            page.next === null
              ? `\ntai: ${page.offset}..${page.total} of ${page.total} characters (end)\n`
              : `\ntai: ${page.offset}..${page.next} of ${page.total} characters; next: tai record read ${field(id)} --offset ${page.next}\n`,
          );
        }
        return 0;
      }
      case 'search': {
        const hits = store.search(parsed.positionals.join(' '), limit ?? 20);
        if (o.json) out.json(hits);
        else {
          for (const hit of hits) {
            out.say(`${hit.id}  ${new Date(hit.createdAt).toISOString()}  ${hit.chars} chars  ${field(hit.label)}\n  ${field(hit.snippet.replace(/\s+/g, ' '))}\n`);
          }
          if (hits.length === 0) out.warn('tai: no record matches\n');
        }
        return 0;
      }
      case 'gc': {
        const report = store.gc(Date.now(), {
          ...(maxAgeDays === undefined ? {} : { maxAgeMs: maxAgeDays * DAY_MS }),
          ...(maxMb === undefined ? {} : { maxChars: maxMb * 1_000_000 }),
        });
        if (o.json) out.json(report);
        else out.say(`deleted ${report.deleted} records; kept ${report.kept} (${report.keptChars} characters)\n`);
        return 0;
      }
      default:
        return USAGE_EXIT;
    }
  } finally {
    db.close();
  }
}
