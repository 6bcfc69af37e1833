/**
 * The record store's pure pieces (src/io/storage/records.ts): a search
 * box's text as FTS5 queries that obey none of its syntax, where an indexed
 * chunk of a record ends, and the snippet of a substring match.
 */

/**
 * Free text as an FTS5 query matching every word literally, whole or as a prefix: each word quoted (so no FTS
 * syntax of the user's is obeyed) with a prefix star (`"bigline-1-ab"*` finds bigline-1-abc).
 */
export function ftsQuery(text: string): string {
  return words(text)
    .map((w) => `"${w.replaceAll('"', '""')}"*`)
    .join(' ');
}

/** Where a word is cut into the index's tokens: at what is not a letter, digit or mark; then also at marks. */
const CUTS: readonly RegExp[] = [/[^\p{L}\p{N}\p{M}\p{Co}]+/u, /[^\p{L}\p{N}\p{Co}]+/u];

/**
 * Each word's queries for the chunked index, which answers no phrase: its tokens (cut where not a letter, digit
 * or mark; also at marks when that differs, as the tokenizer cuts some scripts) quoted, the last with a prefix
 * star. A record matches when each word is in some chunk; a word without a token (`-`) is left to the scan.
 */
export function wordQueries(text: string): string[][] {
  const each = [...new Set(words(text))].map((w) => [...new Set(CUTS.map((cut) => tokenWords(w, cut).join(' ')))].filter((q) => q !== ''));
  return each.filter((queries) => queries.length > 0);
}

/** Each word of `text` as its quoted tokens, the last with a prefix star. */
function tokenWords(text: string, separator: RegExp): string[] {
  return words(text)
    .map((w) => w.split(separator).filter((t) => t !== ''))
    .filter((tokens) => tokens.length > 0)
    .map((tokens) => tokens.map((t, k) => `"${t}"${k === tokens.length - 1 ? '*' : ''}`).join(' '));
}

export function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

/** A chunk that is not a record's last ends after its last space within its last quarter, so no word is cut in two (when there is one). */
export function atSpace(piece: string): string {
  for (let i = piece.length - 1; i >= (piece.length * 3) / 4; i--) if (/\s/.test(piece.charAt(i))) return piece.slice(0, i + 1);
  return piece;
}

/** Characters of context shown before a substring match. */
export const SNIPPET_BEFORE = 40;
/** Characters a substring match's snippet spans. */
export const SNIPPET_SPAN = 100;

/** The snippet of a substring match (its first word marked as FTS marks one), from the text around it. */
export function substringSnippet(around: string, at: number, word: string): string {
  if (at === 0) return around.slice(0, SNIPPET_SPAN); // only the label holds it
  const start = at - 1 - Math.max(0, at - 1 - SNIPPET_BEFORE);
  const end = start + word.length;
  return `${at - 1 > SNIPPET_BEFORE ? '…' : ''}${around.slice(0, start)}»${around.slice(start, end)}«${around.slice(end)}…`;
}

/** The UTF-16 units of the `n` code points of `text` from `unit`. */
export function unitsOf(text: string, unit: number, n: number): number {
  let i = unit;
  for (let k = 0; k < n && i < text.length; k++) {
    const c = text.charCodeAt(i);
    const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    i += c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
  }
  return i - unit;
}

/** Where the part of `text` from `unit` ends (a UTF-16 index): after at most `n` code points, at a space within its last quarter when one is there and the text goes on. */
export function partEnd(text: string, unit: number, n: number): number {
  const end = unit + unitsOf(text, unit, n);
  return end < text.length ? unit + atSpace(text.slice(unit, end)).length : end;
}
