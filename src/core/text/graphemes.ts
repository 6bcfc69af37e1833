/**
 * Grapheme segmentation in bounded slices (docs/security.md, "Text without spaces"): `Intl.Segmenter` is superlinear
 * on a long string, so text goes SEGMENT_SLICE units at a time, the last grapheme of a slice segmented again with the
 * next; only a grapheme longer than a slice is cut, at a code point. Characters that join nothing skip the segmenter.
 */

/** The most UTF-16 units handed to Intl.Segmenter at once. */
export const SEGMENT_SLICE = 256;

const segmenter = new Intl.Segmenter();

/** One grapheme and its offset in the text. */
export interface Grapheme {
  readonly segment: string;
  readonly index: number;
}

/**
 * Whether a UTF-16 unit joins nothing before or after it (UAX #29: no control, Extend, ZWJ, SpacingMark, Prepend,
 * regional indicator, jamo or surrogate). Two in a row are a boundary found without Intl.Segmenter, and a flood of
 * them is the common case (0xFF bytes decoded, CJK text).
 */
export function standalone(c: number): boolean {
  if (c < 0x2000) return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0x2ff);
  return (
    (c >= 0x2010 && c <= 0x2027) ||
    (c >= 0x2030 && c <= 0x205f) ||
    (c >= 0x2070 && c <= 0x20cf) ||
    (c >= 0x2100 && c <= 0x2bff) ||
    (c >= 0x3001 && c <= 0x3029) ||
    (c >= 0x3041 && c <= 0x3096) ||
    (c >= 0x30a1 && c <= 0x30fa) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xff01 && c <= 0xff5e) ||
    c === 0xfffd
  );
}

/** The graphemes of `text`, in order: standalone characters one by one, the rest segmenting at most SEGMENT_SLICE units at a time. */
export function* segmentGraphemes(text: string): Generator<Grapheme> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (standalone(text.charCodeAt(i)) && (i + 1 === n || standalone(text.charCodeAt(i + 1)))) {
      yield { segment: text[i] ?? '', index: i };
      i++;
      continue;
    }
    // The run up to the next boundary between two standalone characters goes to the segmenter.
    let j = i + 1;
    while (j < n && !(standalone(text.charCodeAt(j - 1)) && standalone(text.charCodeAt(j)))) j++;
    yield* segmentRun(text, i, j);
    i = j;
  }
}

/** The graphemes of text[from, to), segmenting at most SEGMENT_SLICE units at a time. */
function* segmentRun(text: string, from: number, to: number): Generator<Grapheme> {
  let start = from;
  while (start < to) {
    if (to - start <= SEGMENT_SLICE) {
      for (const { segment, index } of segmenter.segment(text.slice(start, to))) yield { segment, index: start + index };
      return;
    }
    let end = start + SEGMENT_SLICE;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
    const slice = text.slice(start, end);
    let pending: Grapheme | undefined;
    for (const { segment, index } of segmenter.segment(slice)) {
      if (pending !== undefined) yield pending;
      pending = { segment, index: start + index };
    }
    // The last grapheme may continue past the cut: segment it again with what follows,
    // unless it is the whole slice (a grapheme longer than a slice is cut here).
    const lastIndex = pending === undefined ? start : pending.index;
    if (lastIndex > start) {
      start = lastIndex;
    } else {
      yield { segment: slice, index: start };
      start = end;
    }
  }
}

/** Splits text into graphemes (user-perceived characters). */
export function graphemes(text: string): string[] {
  const out: string[] = [];
  for (const { segment } of segmentGraphemes(text)) out.push(segment);
  return out;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
