/**
 * The claim check (docs/spec.md, "Claim check"): a result longer than SPILL_LIMIT is stored whole as a record first
 * and the caller gets only its head, tail and record id, so a long answer never floods its context. Pure. Lengths
 * count code points, as SQLite's length() and substr() do, so an offset shown here pages the record.
 */
import { SPILL_LIMIT } from '../policy.js';

/** Code points of the head the caller receives. */
export const CLAIM_HEAD = 2_500;
/** Code points of the tail the caller receives. */
export const CLAIM_TAIL = 2_500;

/** A long text counted last: the claim check counts one result several times as it stores and answers it. */
let counted: { readonly text: string; readonly n: number } | undefined;
/** Texts shorter than this are counted each time (cheaper than the comparison). */
const COUNT_MEMO_MIN = 65_536;

/** The code points in `text` (a surrogate pair counts once). */
export function codePoints(text: string): number {
  if (text.length < COUNT_MEMO_MIN) return countCodePoints(text);
  if (counted !== undefined && counted.text === text) return counted.n;
  const n = countCodePoints(text);
  counted = { text, n };
  return n;
}

function countCodePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The first `n` code points of `text`. */
export function headOf(text: string, n: number): string {
  let i = 0;
  for (let k = 0; k < n && i < text.length; k++) i += isPairAt(text, i) ? 2 : 1;
  return text.slice(0, i);
}

/** The last `n` code points of `text`. */
export function tailOf(text: string, n: number): string {
  let i = text.length;
  for (let k = 0; k < n && i > 0; k++) i -= i >= 2 && isPairAt(text, i - 2) ? 2 : 1;
  return text.slice(i);
}

/** True when the result must be stored before it is handed back (a text of more than twice `limit` units is, uncounted: a code point is at most two units). */
export function needsRecord(text: string, limit: number = SPILL_LIMIT): boolean {
  return text.length > 2 * limit || (text.length > limit && codePoints(text) > limit);
}

/** Tells the count of `text` counted elsewhere (a record's parts), so the next `codePoints(text)` need not count it again. */
export function rememberCount(text: string, n: number): void {
  if (text.length >= COUNT_MEMO_MIN) counted = { text, n };
}

/**
 * How far from its cut the head may end (the tail start) to fall on a line end: a fifth of the cut, so a line
 * is cut mid-way only when none ends near the cut.
 */
export const CLAIM_LINE_SLACK = 0.2;

/**
 * The caller's view of a stored result: head, a line naming the record, tail, each cut at a line end within
 * CLAIM_LINE_SLACK of its cut, so a line is seen whole or not at all (unless none ends near).
 */
export function claimCheckView(text: string, recordId: string): string {
  const total = codePoints(text);
  const head = lineHead(headOf(text, CLAIM_HEAD));
  const tail = lineTail(text, tailOf(text, CLAIM_TAIL));
  const headChars = codePoints(head);
  const omitted = total - headChars - codePoints(tail);
  return `${head}\n\n${claimLine(recordId, total, headChars, omitted)}\n\n${tail}`;
}

/**
 * The line between head and tail: what was left out and how to read it (the
 * whole record with --all, the omitted part alone with --offset and --limit).
 */
export function claimLine(recordId: string, total: number, headChars: number, omitted: number): string {
  return (
    `[... ${omitted} characters omitted; the whole result (${total} characters) is record ${recordId}: ` +
    `tai record read ${recordId} --all (the omitted part: --offset ${headChars} --limit ${omitted}) ...]`
  );
}

/** `head` up to and with its last newline, when that is within the slack of its end (in code points, as lengths are). */
function lineHead(head: string): string {
  const cut = head.lastIndexOf('\n');
  return cut >= 0 && codePoints(head.slice(cut + 1)) <= codePoints(head) * CLAIM_LINE_SLACK ? head.slice(0, cut + 1) : head;
}

/** `tail` (the end of `text`) from just after its first newline, when that is within the slack of its start and it does not start a line already. */
function lineTail(text: string, tail: string): string {
  if (text.length === tail.length || text[text.length - tail.length - 1] === '\n') return tail;
  const cut = tail.indexOf('\n');
  return cut >= 0 && codePoints(tail.slice(0, cut + 1)) <= codePoints(tail) * CLAIM_LINE_SLACK && cut + 1 < tail.length ? tail.slice(cut + 1) : tail;
}

function isPairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) return false;
  const d = text.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff;
}
