/**
 * The control socket's lines as JSON values (docs/protocol.md): each line of
 * the one bounded splitter (src/core/decoders/lines.ts) parsed on its own, so
 * a malformed line is an error for that line only. Blank lines are ignored.
 */
import { messageOf } from '../errors.js';
import type { Line } from '../decoders/lines.js';
import { MPLEX_VPANE_HEADER_MAX, MPLEX_VPANE_OPS_MAX, MPLEX_VPANE_WRITE_MAX } from '../policy.js';

/**
 * The longest request line the control socket accepts. It must not refuse a valid request: the largest (a
 * vpane_write, docs/spec.md, "The vpane protocol"; LARGEST_VALID_REQUEST) grows about sixfold when JSON escapes it.
 */
export const REQUEST_LINE_MAX = 8 * 1_048_576;

/** An upper bound of the largest valid request line: every op's data escaped, plus the header and the other fields. */
export const LARGEST_VALID_REQUEST = MPLEX_VPANE_OPS_MAX * (MPLEX_VPANE_WRITE_MAX * 6 + MPLEX_VPANE_HEADER_MAX * 12 + 256) + 64;

/** One decoded line: a JSON value, or why the line was refused. */
export type DecodedLine =
  | { readonly ok: true; readonly value: unknown; /** The line as received, without its line end. */ readonly text: string }
  | { readonly ok: false; readonly error: string; readonly tooLong: boolean };

/** The JSON values of some lines, in order; a blank line is skipped, a line over the cap is refused. */
export function jsonLines(lines: readonly Line[]): DecodedLine[] {
  const out: DecodedLine[] = [];
  for (const line of lines) {
    if (!line.ok) out.push({ ok: false, error: `request line too long (limit ${line.max} bytes)`, tooLong: true });
    else if (line.text.trim() !== '') out.push(decode(line.text));
  }
  return out;
}

function decode(line: string): DecodedLine {
  try {
    return { ok: true, value: JSON.parse(line) as unknown, text: line };
  } catch (err) {
    return { ok: false, error: `malformed JSON: ${messageOf(err)}`, tooLong: false };
  }
}
