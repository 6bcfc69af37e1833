/**
 * Grapheme segmentation in bounded slices (docs/security.md, "A display never
 * stops supervision").
 *
 * `Intl.Segmenter` iterates a long string in superlinear time on Node 20, so
 * a run of non-ASCII text without spaces from an agent could hold the event
 * loop for seconds. Text is segmented `SEGMENT_SLICE` UTF-16 units at a time;
 * the last grapheme of a slice is segmented again at the start of the next
 * one (it may continue there), so graphemes come out whole. Only a single
 * grapheme longer than a slice (a base with hundreds of combining marks) is
 * cut, at a code point boundary.
 */

/** The most UTF-16 units handed to Intl.Segmenter at once. */
export const SEGMENT_SLICE = 256;

const segmenter = new Intl.Segmenter();

/** One grapheme and its offset in the text. */
export interface Grapheme {
  readonly segment: string;
  readonly index: number;
}

/** The graphemes of `text`, in order, segmenting at most SEGMENT_SLICE units at a time. */
export function* segmentGraphemes(text: string): Generator<Grapheme> {
  let start = 0;
  const n = text.length;
  while (start < n) {
    if (n - start <= SEGMENT_SLICE) {
      for (const { segment, index } of segmenter.segment(text.slice(start))) yield { segment, index: start + index };
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
