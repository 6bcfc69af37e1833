/**
 * The stream a remote session prints, read back: before the begin line only a login banner, never agent output;
 * after it, frames naming stream, spool offset and length, so a reconnect that repeats bytes (or cut a line) reads
 * on exactly where the last stopped.
 */

/** The agent's stdout (`o`) or stderr (`e`). */
export type SpoolStream = 'o' | 'e';

/** One thing the session said. */
export type SessionItem =
  /** Bytes before the begin line: a banner, left out of the output. */
  | { readonly kind: 'banner'; readonly bytes: Buffer }
  /** The session began: the job's folder, how many stdin lines the host has, whether it has their end. */
  | { readonly kind: 'begin'; readonly dir: string; readonly inputLines: number; readonly inputEnded: boolean }
  /** Agent output from `offset` in a spool. */
  | { readonly kind: 'data'; readonly stream: SpoolStream; readonly offset: number; readonly bytes: Buffer }
  /** The spool of a stream reached its bound: everything before is sent, the agent's writes now block. */
  | { readonly kind: 'full'; readonly stream: SpoolStream }
  /** The agent ended with this status and all its output was sent. */
  | { readonly kind: 'exit'; readonly code: number }
  /** The job is no longer on the host (it ended, or the host stopped it after the grace). */
  | { readonly kind: 'gone' }
  /** Bytes after the begin line outside any frame (never sent by the reaper itself). */
  | { readonly kind: 'garbage'; readonly bytes: Buffer };

const MARK = Buffer.from('\u0001tai ');
const HEADER_MAX = 8_192;
/** What may end a banner: a session's begin, or the word that its job is gone. */
const OPENINGS = [Buffer.from('\u0001tai begin '), Buffer.from('\u0001tai gone\n')];

function firstOf(buf: Buffer, needles: readonly Buffer[]): number {
  const found = needles.map((needle) => buf.indexOf(needle)).filter((at) => at >= 0);
  return found.length === 0 ? -1 : Math.min(...found);
}

/** Reads a session's stream, chunk by chunk, into items. */
export class SessionDecoder {
  #buf: Buffer = Buffer.alloc(0);
  #begun = false;
  #data: { stream: SpoolStream; offset: number; left: number } | undefined;

  /** The items `chunk` completes, in order. */
  push(chunk: Buffer): SessionItem[] {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    const items: SessionItem[] = [];
    for (;;) {
      const item = this.#next();
      if (item === undefined) return items;
      // A data frame whose bytes have not come yet says nothing.
      if (item.kind !== 'data' || item.bytes.length > 0) items.push(item);
    }
  }

  /** What is left unread when the stream ends: a banner with no begin line, or a frame cut short. */
  end(): SessionItem[] {
    const rest = this.#buf;
    this.#buf = Buffer.alloc(0);
    if (rest.length === 0) return [];
    return [{ kind: this.#begun ? 'garbage' : 'banner', bytes: rest }];
  }

  #next(): SessionItem | undefined {
    const data = this.#data;
    if (data !== undefined) {
      if (this.#buf.length === 0) return undefined;
      const bytes = this.#take(Math.min(data.left, this.#buf.length));
      const item: SessionItem = { kind: 'data', stream: data.stream, offset: data.offset, bytes };
      data.offset += bytes.length;
      data.left -= bytes.length;
      if (data.left === 0) this.#data = undefined;
      return item;
    }
    const at = this.#begun ? this.#buf.indexOf(MARK) : firstOf(this.#buf, OPENINGS);
    if (at > 0) return { kind: this.#begun ? 'garbage' : 'banner', bytes: this.#take(at) };
    if (at < 0) return this.#unframed();
    const eol = this.#buf.indexOf(0x0a);
    if (eol < 0) return this.#buf.length > HEADER_MAX ? { kind: 'garbage', bytes: this.#take(this.#buf.length) } : undefined;
    const header = this.#take(eol + 1).subarray(MARK.length, eol).toString('utf8');
    return this.#header(header);
  }

  /** No mark in the buffer: keep a tail that may be the start of one, give up the rest. */
  #unframed(): SessionItem | undefined {
    const keep = Math.min(this.#buf.length, 16);
    const head = this.#buf.length - keep;
    // Hold back only what could begin a mark (from its \x01 on).
    const start = this.#buf.indexOf(0x01, head);
    const cut = start < 0 ? this.#buf.length : start;
    if (cut === 0) return undefined;
    return { kind: this.#begun ? 'garbage' : 'banner', bytes: this.#take(cut) };
  }

  #header(header: string): SessionItem | undefined {
    const words = header.split(' ');
    const [kind, a, b, c] = words;
    if (kind === 'begin' && a !== undefined) {
      this.#begun = true;
      return { kind: 'begin', dir: words.slice(1, -2).join(' '), inputLines: Number(words.at(-2)), inputEnded: words.at(-1) === '1' };
    }
    if ((kind === 'o' || kind === 'e') && a !== undefined && b !== undefined && c === undefined) {
      const offset = Number(a);
      const length = Number(b);
      if (Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length > 0) {
        this.#data = { stream: kind, offset, left: length };
        return this.#next() ?? { kind: 'data', stream: kind, offset, bytes: Buffer.alloc(0) };
      }
    }
    if (kind === 'full' && (a === 'o' || a === 'e')) return { kind: 'full', stream: a };
    if (kind === 'x' && a !== undefined && /^\d+$/.test(a)) return { kind: 'exit', code: Number(a) };
    if (kind === 'gone') return { kind: 'gone' };
    return { kind: 'garbage', bytes: Buffer.from(`\u0001tai ${header}\n`) };
  }

  #take(n: number): Buffer {
    const head = this.#buf.subarray(0, n);
    this.#buf = this.#buf.subarray(n);
    return head;
  }
}

/** How much of each stream tai has: what a new frame adds is only the bytes past it. */
export class SpoolOffsets {
  readonly #have: Record<SpoolStream, number> = { o: 0, e: 0 };

  /** The bytes of stream `stream` tai has. */
  have(stream: SpoolStream): number {
    return this.#have[stream];
  }

  /** The part of a frame not seen yet, and the bytes missing before it (0 unless the host skipped some). */
  accept(stream: SpoolStream, offset: number, bytes: Buffer): { fresh: Buffer; missing: number } {
    const have = this.#have[stream];
    const end = offset + bytes.length;
    if (end <= have) return { fresh: Buffer.alloc(0), missing: 0 };
    const missing = Math.max(0, offset - have);
    this.#have[stream] = end;
    return { fresh: bytes.subarray(Math.max(0, have - offset)), missing };
  }
}
