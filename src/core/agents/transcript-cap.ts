/**
 * The cap of a stored transcript (docs/agents.md, "An agent's transcript"): at most TRANSCRIPT_MAX_BYTES per
 * agent, the first half its head, kept whole, the second its newest tail; what falls between is cut and counted.
 * Pure: the store (src/io/storage/transcripts.ts) carries out what `place` decides.
 */

/** A stored transcript's limit, in UTF-8 bytes (1 MiB). */
export const TRANSCRIPT_MAX_BYTES = 1_048_576;

/** The head's and the tail's share of the limit. */
export const TRANSCRIPT_HEAD_BYTES = TRANSCRIPT_MAX_BYTES / 2;
export const TRANSCRIPT_TAIL_BYTES = TRANSCRIPT_MAX_BYTES / 2;

/** What the writer knows of one transcript's parts. */
export interface CapState {
  nextSeq: number;
  headBytes: number;
  /** The tail's parts, oldest first. */
  tail: { seq: number; bytes: number }[];
  tailBytes: number;
  /** Bytes cut so far. */
  cut: number;
}

/** One write: parts to insert, parts to delete, bytes newly cut. */
export interface CapPlan {
  readonly insert: readonly { readonly seq: number; readonly text: string; readonly head: boolean }[];
  readonly drop: readonly number[];
  readonly cut: number;
}

/** A transcript with nothing written. */
export function emptyCap(): CapState {
  return { nextSeq: 1, headBytes: 0, tail: [], tailBytes: 0, cut: 0 };
}

/** The UTF-8 length of `text`. */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The longest start of `text` of at most `max` UTF-8 bytes, never inside a character. */
export function utf8Prefix(text: string, max: number): string {
  let n = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff;
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (n + w > max) break;
    n += w;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** The longest end of `text` of at most `max` UTF-8 bytes, never inside a character. */
export function utf8Suffix(text: string, max: number): string {
  let n = 0;
  let i = text.length;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    const pair = c >= 0xdc00 && c <= 0xdfff && i > 1;
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (n + w > max) break;
    n += w;
    i -= pair ? 2 : 1;
  }
  return text.slice(i);
}

/** Decides where `text` goes and what is cut to make room; updates `state` to match. */
export function place(state: CapState, text: string): CapPlan {
  const insert: { seq: number; text: string; head: boolean }[] = [];
  const drop: number[] = [];
  let cut = 0;
  let rest = text;
  if (rest === '') return { insert, drop, cut };
  if (state.headBytes < TRANSCRIPT_HEAD_BYTES && state.tail.length === 0 && state.cut === 0) {
    const head = utf8Prefix(rest, TRANSCRIPT_HEAD_BYTES - state.headBytes);
    if (head !== '') {
      insert.push({ seq: state.nextSeq++, text: head, head: true });
      state.headBytes += utf8Bytes(head);
      rest = rest.slice(head.length);
    }
  }
  if (rest === '') return { insert, drop, cut };
  let bytes = utf8Bytes(rest);
  if (bytes > TRANSCRIPT_TAIL_BYTES) {
    // One write bigger than the whole tail: only its end is kept.
    const keep = utf8Suffix(rest, TRANSCRIPT_TAIL_BYTES);
    cut += bytes - utf8Bytes(keep);
    rest = keep;
    bytes = utf8Bytes(rest);
  }
  const seq = state.nextSeq++;
  insert.push({ seq, text: rest, head: false });
  state.tail.push({ seq, bytes });
  state.tailBytes += bytes;
  while (state.tailBytes > TRANSCRIPT_TAIL_BYTES && state.tail.length > 1) {
    const old = state.tail.shift();
    if (!old) break;
    state.tailBytes -= old.bytes;
    cut += old.bytes;
    drop.push(old.seq);
  }
  state.cut += cut;
  return { insert, drop, cut };
}
