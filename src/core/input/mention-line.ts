/**
 * The cockpit's mention prompt as pure line-editing state (docs/agents-registry.md, "In the cockpit"): the text typed
 * after the prefix key's `@` (the line always starts with it), the cursor, Tab completion of agent names and an error
 * shown until the next key. A key (a keystroke or a whole bracketed paste) asks the cockpit to go on, submit or cancel.
 */
import { commonPrefix, completeName } from '../agents/agent-registry.js';

/** The prompt's state. */
export interface MentionLine {
  readonly text: string;
  /** Index into `text` (UTF-16), 0..text.length. */
  readonly cursor: number;
  /** Shown instead of the hint until the next key. */
  readonly error?: string;
  /** The names Tab found when it could not decide between them. */
  readonly choices?: readonly string[];
}

/** What a key asks of the cockpit. */
export type LineOutcome = 'edit' | 'submit' | 'cancel';

/** A fresh prompt: `@` and the cursor after it. */
export const EMPTY_LINE: MentionLine = { text: '@', cursor: 1 };

/** The longest line the prompt holds (a prompt is one line, not a document). */
export const LINE_MAX = 4_000;

const ENTER = new Set(['\r', '\n']);
const BACKSPACE = new Set(['\x7f', '\b']);
const LEFT = new Set(['\x1b[D', '\x1bOD', '\x02']);
const RIGHT = new Set(['\x1b[C', '\x1bOC', '\x06']);
const HOME = new Set(['\x1b[H', '\x1bOH', '\x1b[1~', '\x01']);
const END = new Set(['\x1b[F', '\x1bOF', '\x1b[4~', '\x05']);
const DELETE = '\x1b[3~';
const KILL_LINE = '\x15';
const KILL_WORD = '\x17';

/** Applies one key (or a paste, `paste` true) to the line; `names` are the registry's, for Tab. */
export function editLine(line: MentionLine, key: string, names: readonly string[], paste = false): { line: MentionLine; outcome: LineOutcome } {
  const plain: MentionLine = { text: line.text, cursor: line.cursor };
  const edit = (l: MentionLine): { line: MentionLine; outcome: LineOutcome } => ({ line: l, outcome: 'edit' });
  // The line opens with its `@`: a typed (or pasted) `@` right after it is the same `@`, not a second one.
  if (text0(plain) && (key === '@' || (paste && key.startsWith('@')))) key = key.slice(1);
  if (key === '') return edit(plain);
  if (paste) return edit(insert(plain, key.replace(/\r\n|[\r\n\t]/g, ' ')));
  if (key === '\x1b' || key === '\x03' || key === '\x07') return { line: plain, outcome: 'cancel' };
  if (ENTER.has(key)) return { line: plain, outcome: 'submit' };
  if (key === '\t') return edit(complete(plain, names));
  const { text, cursor } = plain;
  if (BACKSPACE.has(key)) {
    // Deleting the `@` itself (an empty line) closes the prompt, as in a shell's vi mode.
    if (text === '@' || text === '') return { line: plain, outcome: 'cancel' };
    if (cursor === 0) return edit(plain);
    const from = before(text, cursor);
    return edit({ text: text.slice(0, from) + text.slice(cursor), cursor: from });
  }
  if (key === DELETE) return edit(cursor >= text.length ? plain : { text: text.slice(0, cursor) + text.slice(after(text, cursor)), cursor });
  if (LEFT.has(key)) return edit({ text, cursor: cursor === 0 ? 0 : before(text, cursor) });
  if (RIGHT.has(key)) return edit({ text, cursor: cursor >= text.length ? text.length : after(text, cursor) });
  if (HOME.has(key)) return edit({ text, cursor: 0 });
  if (END.has(key)) return edit({ text, cursor: text.length });
  if (key === KILL_LINE) return edit({ text: text.slice(cursor), cursor: 0 });
  if (key === KILL_WORD) {
    const from = text.slice(0, cursor).replace(/\S+\s*$/, '').length;
    return edit({ text: text.slice(0, from) + text.slice(cursor), cursor: from });
  }
  // Other control keys and unknown escape sequences are ignored, never inserted.
  if (key.startsWith('\x1b') || /^[\x00-\x1f\x7f]$/.test(key)) return edit(plain);
  return edit(insert(plain, key));
}

/** True for the line as it opened: only its `@`, the cursor after it. */
function text0(line: MentionLine): boolean {
  return line.text === '@' && line.cursor === 1;
}

/** The line with an error shown until the next key. */
export function withError(line: MentionLine, error: string): MentionLine {
  return { text: line.text, cursor: line.cursor, error };
}

/**
 * Tab: when the cursor is in the name (`@ge|`), fills in the only matching
 * name and a space, or the names' common prefix and lists them as choices;
 * no match is an error in the line.
 */
export function complete(line: MentionLine, names: readonly string[]): MentionLine {
  const m = /^(\s*@)([a-z0-9_-]*)/.exec(line.text);
  if (!m || line.cursor < m[1].length || line.cursor > m[0].length) return line;
  const typed = line.text.slice(m[1].length, line.cursor);
  const matches = completeName(typed, names);
  const rest = line.text.slice(m[0].length);
  if (matches.length === 0) return withError(line, `no agent name starts with "${typed}"; known: ${[...new Set(names)].sort().join(', ') || 'none'}`);
  const only = matches.length === 1 ? matches[0] : undefined;
  const name = only ?? commonPrefix(matches);
  const tail = only !== undefined && !rest.startsWith(' ') ? ` ${rest}` : rest;
  const text = `${m[1]}${name}${tail}`;
  const cursor = m[1].length + name.length + (only !== undefined ? 1 : 0);
  return only !== undefined ? { text, cursor } : { text, cursor, choices: matches };
}

function insert(line: MentionLine, s: string): MentionLine {
  const room = LINE_MAX - line.text.length;
  if (room <= 0) return line;
  const add = s.slice(0, room);
  return { text: line.text.slice(0, line.cursor) + add + line.text.slice(line.cursor), cursor: line.cursor + add.length };
}

/** The index of the character before `i` (a surrogate pair is one character). */
function before(text: string, i: number): number {
  const c = text.charCodeAt(i - 1);
  return i >= 2 && c >= 0xdc00 && c <= 0xdfff ? i - 2 : i - 1;
}

/** The index after the character at `i`. */
function after(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff ? i + 2 : i + 1;
}
