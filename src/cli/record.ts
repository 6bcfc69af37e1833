/**
 * `tai record read ID [--offset N] [--limit N]`, `tai record search TEXT`,
 * `tai record gc [--max-age-days N] [--max-mb N]`: the claim check's records,
 * read straight from the state database (no cockpit needed; the database is
 * shared by every tai process on the machine). `read` prints the page on
 * stdout and, on stderr, where the next one starts. Exit 0, 1 when there is
 * no such record, 64 for a bad command line.
 */
import { join } from 'node:path';
import { RECORDS_MAX_AGE_DAYS, RECORDS_MAX_CHARS, RecordStore } from '../io/storage/records.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../io/storage/state-db.js';
import { processIo, type CliIo } from './spawn.js';
import { parseCommandLine, USAGE_EXIT } from './command-line.js';

const USAGE =
  'usage: tai record read ID [--offset N] [--limit N] [--json]\n' +
  '       tai record search TEXT... [--limit N] [--json]\n' +
  `       tai record gc [--max-age-days N (default ${RECORDS_MAX_AGE_DAYS})] [--max-mb N (default ${RECORDS_MAX_CHARS / 1_000_000})]\n`;

const DAY_MS = 86_400_000;

/** Runs `tai record ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const [sub, ...rest] = args;
  const parsed = parseCommandLine('record', rest, {
    offset: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    'max-age-days': { type: 'string' },
    'max-mb': { type: 'string' },
  }, USAGE, io.err);
  if (!parsed) return USAGE_EXIT;
  const o = parsed.values;
  const numbers = [o.offset, o.limit, o['max-age-days'], o['max-mb']].map((v) => (v === undefined ? undefined : Number(v)));
  if (numbers.some((n) => n !== undefined && !(Number.isFinite(n) && n >= 0))) {
    io.err(`tai record: numbers must be zero or more\n${USAGE}`);
    return USAGE_EXIT;
  }
  const [offset, limit, maxAgeDays, maxMb] = numbers;
  if (sub !== 'read' && sub !== 'search' && sub !== 'gc') {
    io.err(USAGE);
    return USAGE_EXIT;
  }
  if ((sub === 'read' && parsed.positionals.length !== 1) || (sub === 'search' && parsed.positionals.length === 0)) {
    io.err(USAGE);
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
          io.err(`tai record: no such record: ${id}\n`);
          return 1;
        }
        if (o.json) io.out(`${JSON.stringify(page)}\n`);
        else {
          io.out(page.text);
          io.err(
            page.next === null
              ? `\ntai: ${page.offset}..${page.total} of ${page.total} characters (end)\n`
              : `\ntai: ${page.offset}..${page.next} of ${page.total} characters; next: tai record read ${id} --offset ${page.next}\n`,
          );
        }
        return 0;
      }
      case 'search': {
        const hits = store.search(parsed.positionals.join(' '), limit ?? 20);
        if (o.json) io.out(`${JSON.stringify(hits)}\n`);
        else {
          for (const hit of hits) {
            io.out(`${hit.id}  ${new Date(hit.createdAt).toISOString()}  ${hit.chars} chars  ${hit.label}\n  ${hit.snippet.replace(/\s+/g, ' ')}\n`);
          }
          if (hits.length === 0) io.err('tai: no record matches\n');
        }
        return 0;
      }
      case 'gc': {
        const report = store.gc(Date.now(), {
          ...(maxAgeDays === undefined ? {} : { maxAgeMs: maxAgeDays * DAY_MS }),
          ...(maxMb === undefined ? {} : { maxChars: maxMb * 1_000_000 }),
        });
        if (o.json) io.out(`${JSON.stringify(report)}\n`);
        else io.out(`deleted ${report.deleted} records; kept ${report.kept} (${report.keptChars} characters)\n`);
        return 0;
      }
      default:
        return USAGE_EXIT;
    }
  } finally {
    db.close();
  }
}
