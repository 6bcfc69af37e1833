/**
 * `tai record read|search|gc`: the claim check's records straight from the state database, no cockpit needed
 * (docs/agents.md, "Results and the claim check"). `read` pages on a terminal and prints whole to a pipe, sanitized
 * as a result is (src/cli/output.ts). Exit 1 when no record is found, as grep does; 64 for a bad command line.
 */
import { join } from 'node:path';
import { RECORD_PAGE_DEFAULT, RECORD_PAGE_MAX, RECORDS_MAX_AGE_DAYS, RECORDS_MAX_CHARS, RecordStore } from '../../io/storage/records.js';
import type { RecordPage } from '../../core/agents/agent-service.js';
import { codePoints } from '../../core/agents/claim-check.js';
import { assertNever } from '../../core/never.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../../io/storage/state-db.js';
import { collectFinished, compactState, GC_OLDER_THAN_DEFAULT, stateBytes } from '../../io/storage/state-gc.js';
import { AgentsStore } from '../../io/storage/agents-store.js';
import { TranscriptStore } from '../../io/storage/transcripts.js';
import { durationMs } from '../../core/outage/reset-time.js';
import { processIo, type CliIo } from '../cli-io.js';
import { answeringBadLines, CommandLineError, readCommandLine, wholeNumber } from '../command-line.js';
import { CliOutput, field } from '../output.js';

const USAGE =
  'usage: tai record read ID [--all | --offset N [--limit N]] [--json | --raw]\n' +
  '       tai record search TEXT... [--limit N] [--json]\n' +
  `       tai record gc [--older-than DURATION (default ${GC_OLDER_THAN_DEFAULT})] [--max-age-days N (default ${RECORDS_MAX_AGE_DAYS})] [--max-mb N (default ${RECORDS_MAX_CHARS / 1_000_000})]\n` +
  'gc deletes the rows, transcripts and records of agents that finished longer ago than --older-than (30m, 12h, 7d; 0 for all),\n' +
  'then records past --max-age-days or --max-mb, and gives the room back to the file system.\n' +
  `read prints one page (${RECORD_PAGE_DEFAULT} characters unless --limit) to a terminal and says where the next starts;\n` +
  'to a pipe or a file, and with --all, it prints the whole record (page after page) unless --offset or --limit is given.\n' +
  'search finds records whose text or label holds each word, as a word, a word\'s start or anywhere inside a word;\n' +
  'it exits 1 when no record matches (as grep does).\n' +
  'A page is printed sanitized (only colours, newline and tab survive; colours only to a terminal);\n' +
  '--raw prints its exact text, --json the page as escaped JSON.\n';

const SPEC = {
  name: 'record',
  usage: USAGE,
  options: {
    all: { type: 'boolean' },
    offset: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    raw: { type: 'boolean' },
    'max-age-days': { type: 'string' },
    'max-mb': { type: 'string' },
    'older-than': { type: 'string' },
  },
} as const;

const DAY_MS = 86_400_000;

/** Runs `tai record ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  return answeringBadLines(SPEC, out, async () => {
    const o = parsed.values;
    const [sub, ...positionals] = parsed.positionals;
    if (sub !== 'read' && sub !== 'search' && sub !== 'gc') {
      throw new CommandLineError(sub === undefined ? 'missing subcommand: read, search or gc' : `unknown subcommand '${sub}' (read, search or gc)`);
    }
    if (o.json && o.raw) throw new CommandLineError('--json and --raw are two forms of the page: give one');
    if (o.all && (o.offset !== undefined || o.limit !== undefined)) throw new CommandLineError('--all reads the whole record: give it without --offset and --limit');
    const offset = wholeNumber('offset', o.offset);
    const limit = wholeNumber('limit', o.limit, 1);
    const maxAgeDays = nonNegative('max-age-days', o['max-age-days']);
    const maxMb = nonNegative('max-mb', o['max-mb']);
    const olderThanMs = olderThan(o['older-than'] ?? GC_OLDER_THAN_DEFAULT);
    if (sub === 'read' && positionals.length !== 1) {
      throw new CommandLineError(positionals.length === 0 ? 'missing record id (the id the claim check printed: r...)' : `one record id, not ${positionals.length}`);
    }
    if (sub === 'search' && positionals.join('').trim() === '') throw new CommandLineError('missing TEXT to search for');
    const db = openStateDb(join(stateDir(io.env), STATE_DB_FILE));
    try {
      const store = new RecordStore(db);
      switch (sub) {
        case 'read': {
          const id = positionals[0] ?? '';
          // A pipe or a file wants the data, not a page of it (cat's habit); a terminal gets one page and the way on.
          const whole = o.all === true || (io.outIsTerminal !== true && offset === undefined && limit === undefined);
          return whole ? readAll(store, id, o, out) : readPage(store, id, offset ?? 0, limit, o, out);
        }
        case 'search': {
          indexFirst(store);
          const hits = store.search(positionals.join(' '), limit ?? 20);
          if (o.json) out.json(hits);
          else {
            for (const hit of hits) {
              out.say(`${hit.id}  ${new Date(hit.createdAt).toISOString()}  ${hit.chars} chars  ${field(hit.label)}\n  ${field(hit.snippet.replace(/\s+/g, ' '))}\n`);
            }
            if (hits.length === 0) out.warn('tai record: no record matches\n');
          }
          return hits.length === 0 ? 1 : 0;
        }
        case 'gc': {
          const now = Date.now();
          // Every store's tables exist before the collection looks at them.
          new AgentsStore(db);
          new TranscriptStore(db);
          const bytesBefore = stateBytes(db);
          const finished = collectFinished(db, now, olderThanMs);
          const report = store.gc(now, {
            ...(maxAgeDays === undefined ? {} : { maxAgeMs: maxAgeDays * DAY_MS }),
            ...(maxMb === undefined ? {} : { maxChars: maxMb * 1_000_000 }),
          });
          compactState(db);
          const bytesAfter = stateBytes(db);
          const deleted = report.deleted + finished.records;
          if (o.json) out.json({ ...report, deleted, agents: finished.agents, transcripts: finished.transcripts, bytesBefore, bytesAfter });
          else {
            out.say(`deleted ${deleted} records; kept ${report.kept} (${report.keptChars} characters)\n`);
            out.say(`deleted ${finished.agents} agents' rows and ${finished.transcripts} transcripts finished over ${o['older-than'] ?? GC_OLDER_THAN_DEFAULT} ago; the database went from ${mib(bytesBefore)} to ${mib(bytesAfter)}\n`);
          }
          return 0;
        }
        default:
          return assertNever(sub);
      }
    } finally {
      db.close();
    }
  });
}

type ReadFlags = { readonly json?: boolean | undefined; readonly raw?: boolean | undefined };

/** One page, and on stderr where the next one starts; an offset past the end is a bad line. */
function readPage(store: RecordStore, id: string, offset: number, limit: number | undefined, o: ReadFlags, out: CliOutput): number {
  const page = store.read(id, offset, limit);
  if (!page) return noRecord(id, out);
  if (offset > page.total) throw new CommandLineError(`--offset ${offset} is past the end of record ${id} (${page.total} characters)`);
  if (o.json) out.json(page);
  else {
    out.result(page.text, o.raw === true);
    out.warn(
      page.next === null
        ? `\ntai: ${page.offset}..${page.total} of ${page.total} characters (end)\n`
        : `\ntai: ${page.offset}..${page.next} of ${page.total} characters; next: tai record read ${field(id)} --offset ${page.next}; all: --all\n`,
    );
  }
  return 0;
}

/** The whole record, read page after page (RECORD_PAGE_MAX each), so memory stays one page whatever its size. */
function readAll(store: RecordStore, id: string, o: ReadFlags, out: CliOutput): number {
  let page = store.read(id, 0, RECORD_PAGE_MAX);
  if (!page) return noRecord(id, out);
  if (o.json) {
    // One JSON value for the whole record, as a page with no next.
    let text = page.text;
    while (page.next !== null) {
      page = store.read(id, page.next, RECORD_PAGE_MAX);
      if (!page) break;
      text += page.text;
    }
    out.json({ id, offset: 0, text, total: page?.total ?? codePoints(text), next: null });
    return 0;
  }
  for (;;) {
    out.result(page.text, o.raw === true);
    if (page.next === null) break;
    const next: RecordPage | undefined = store.read(id, page.next, RECORD_PAGE_MAX);
    if (!next) break; // deleted by a gc while it was read: what was printed is all there is
    page = next;
  }
  return 0;
}

function noRecord(id: string, out: CliOutput): number {
  out.warn(`tai record: no such record: ${field(id)}\n`);
  return 1;
}

/** `--older-than`: a duration such as 30m, 12h or 7d, or 0. */
function olderThan(text: string): number {
  if (text.trim() === '0') return 0;
  const ms = /^\s*(\d+(\.\d+)?\s*[a-z]+\s*)+$/i.test(text) ? durationMs(text) : undefined;
  if (ms === undefined) throw new CommandLineError(`--older-than takes a duration such as 30m, 12h or 7d (or 0), got '${text}'`);
  return ms;
}

function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(1)} MB`;
}

function nonNegative(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!(text.trim() !== '' && Number.isFinite(n) && n >= 0)) throw new CommandLineError(`--${flag} takes a number, 0 or more, got '${text}'`);
  return n;
}

/** What a cockpit has not indexed yet (it was busy, or it ended first) is indexed before a search; a refusal leaves it to the substring scan. */
function indexFirst(store: RecordStore): void {
  try {
    store.indexAll();
  } catch {
    // locked or full: search still finds it by substring
  }
}
