/**
 * The key help's text (prefix + ?) as rows for a window of a given size: the prefix keys, a focused panel's keys and
 * how to scroll the help. A window too short shows a part and its title row says which lines; the overlay
 * (components/HelpOverlay.tsx) draws it and the key router scrolls it.
 */
import { COPY_KEYS, LIST_KEYS, MENTION_KEYS, PREFIX_KEYS, prefixName } from './keys.js';

export { HELP_SCROLL } from './key-table.js';

const WHAT: Readonly<Record<string, string>> = {
  next: 'focus the next pane',
  prev: 'focus the previous pane',
  up: 'focus the pane above',
  down: 'focus the pane below',
  left: 'focus the pane on the left',
  right: 'focus the pane on the right',
  close: 'close the focused panel; a running agent asks first (y cancels it)',
  zoom: 'zoom the focused pane to full screen and back (the status line says zoomed)',
  'scroll-1': 'scroll back a page (so does the wheel); PageUp/PageDown go on, any other key returns and goes on to the pane, q and Esc only return',
  scroll1: 'scroll forward a page',
  help: 'this help',
  lane_diff: "open the focused lane's diff, zoomed (q closes it)",
  detach: 'detach this terminal: agents go on (tai attach comes back)',
};

/** The column descriptions start at (three spaces, the 16-column key, one space). */
const DESCRIPTION_AT = 20;

/** The help's lines, unwrapped (the first is its title). */
export function helpLines(prefix: string): string[] {
  const p = prefixName(prefix);
  const lines = [` tai keys: press ${p}, then`, ''];
  for (const entry of PREFIX_KEYS) {
    const c = entry.command;
    const key = c.cmd === 'focus' ? c.to : c.cmd === 'scroll' ? `scroll${'pages' in c ? c.pages : 0}` : c.cmd;
    lines.push(`   ${entry.label.padEnd(16)} ${WHAT[key] ?? key}`);
  }
  lines.push(`   ${COPY_KEYS.join(' / ').padEnd(16)} copy mode: arrows/PageUp move, / searches back, n again, v selects, Enter copies, q leaves`);
  lines.push(`   ${MENTION_KEYS.join(' / ').padEnd(16)} start an agent by name: @name prompt, Tab completes, Enter starts, Esc cancels`);
  lines.push(`   ${LIST_KEYS.join(' / ').padEnd(16)} list every agent (running, hidden, finished); Enter opens one zoomed; y / n there answer every open question of the selected agent's tool`);
  lines.push(`   ${`${p} ${p}`.padEnd(16)} send ${p} itself`);
  lines.push('', ' In a focused agent panel:');
  lines.push(`   ${'1 .. 9'.padEnd(16)} answer its question (? · waiting for you) with that option`);
  lines.push(`   ${'y / n'.padEnd(16)} the question's first allow / reject option`);
  lines.push(`   ${'a / r'.padEnd(16)} a rule: allow / reject that tool for that agent for 30 min, answering this question and the next ones (tai ask rule list)`);
  lines.push(`   ${'any other key'.padEnd(16)} opens the steering line: Enter sends the agent a message, Esc cancels`);
  lines.push('', ' Every other key goes to the focused pane.', ' j / k / Space / PageUp scroll this help; any other key closes it.');
  return lines;
}

/** Cuts a help line into rows of at most `cols` at spaces, continuing under the description column (or the line's own indent). */
export function wrapHelpLine(line: string, cols: number): string[] {
  if (line.length <= cols || cols < 2) return [line];
  const indent = line.startsWith('   ') && line.length > DESCRIPTION_AT && cols > DESCRIPTION_AT + 10 ? DESCRIPTION_AT : 1;
  const out: string[] = [];
  let rest = line;
  while (rest.length > cols) {
    let cut = rest.lastIndexOf(' ', cols);
    if (cut <= indent) cut = cols;
    out.push(rest.slice(0, cut));
    rest = ' '.repeat(indent) + rest.slice(cut).trimStart();
  }
  out.push(rest);
  return out;
}

/** What the help shows in `cols` x `rows` from body line `top`: its rows (the title first) and the last `top` there is. */
export function helpView(prefix: string, cols: number, rows: number, top: number): { readonly rows: string[]; readonly maxTop: number } {
  const [title = '', ...rest] = helpLines(prefix);
  const body = rest.flatMap((l) => wrapHelpLine(l, cols));
  const room = Math.max(1, rows - 1);
  const maxTop = Math.max(0, body.length - room);
  const at = Math.min(Math.max(0, top), maxTop);
  const shown = body.slice(at, at + room);
  const where = maxTop === 0 ? '' : ` · ${at + 1}-${at + shown.length} of ${body.length}${at < maxTop ? ' · Space: more' : ''}`;
  return { rows: [title + where, ...shown], maxTop };
}
