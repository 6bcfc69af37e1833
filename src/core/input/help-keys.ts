/**
 * The keys that scroll the key help while it is open (docs/cockpit.md):
 * read by the key scanner, shown by the help's own title.
 */

/** The keys that scroll the help while it is open: a line or a page each way; any other key closes it. */
export const HELP_SCROLL: ReadonlyMap<string, { readonly lines?: number; readonly pages?: number }> = new Map([
  ['j', { lines: 1 }],
  ['\x1b[B', { lines: 1 }],
  ['\x1bOB', { lines: 1 }],
  ['k', { lines: -1 }],
  ['\x1b[A', { lines: -1 }],
  ['\x1bOA', { lines: -1 }],
  [' ', { pages: 1 }],
  ['\x1b[6~', { pages: 1 }],
  ['\x1b[5~', { pages: -1 }],
]);
