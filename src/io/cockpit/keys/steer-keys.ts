/**
 * Keys typed into a focused agent panel with no open question (docs/agents.md, "Steering"): the first printable key
 * opens the steering line (store/steer-line.ts), Enter sends it as a follow-up, Esc cancels. A refused send keeps the
 * text and shows why, so nothing typed is lost.
 */
import type { Reply } from '../../../../store/dispatch.js';
import type { SteerLine } from '../../../../store/steer-line.js';

/** What the steering keys act on. */
export interface SteerKeysOptions {
  readonly line: SteerLine;
  /** Sends the message (the `steer` command through the one dispatcher). */
  send(id: number, text: string): Promise<Reply>;
}

const ESC = '\x1b';

/** The handler for bytes typed into panel `id` while it has no question open; `ended` says why its agent hears no more. */
export function steerKeys(options: SteerKeysOptions): (id: number, data: string, ended?: string) => void {
  const { line } = options;
  /** A key for an agent that has ended: the line says so and how to talk to it again; Enter or Esc closes it, nothing is sent. */
  const endedKey = (id: number, data: string, ended: string): void => {
    const s = line.getState();
    if (s.panel === id && (data === ESC || data === '\r' || data === '\n')) {
      line.getState().close();
      return;
    }
    if (s.panel !== id) line.getState().open(id);
    line.getState().fail(ended);
  };
  const key = (id: number, data: string): void => {
    const s = line.getState();
    if (s.busy) return;
    if (s.panel !== id) {
      // A new line opens on a printable key only: a stray arrow or Enter is not a message.
      const printable = printableOf(data);
      if (printable === '') return;
      line.getState().open(id);
      line.getState().type(printable);
      return;
    }
    if (data === ESC) {
      line.getState().close();
      return;
    }
    if (data === '\r' || data === '\n') {
      const text = s.text.trim();
      if (text === '') return;
      line.getState().setBusy(true);
      void options.send(id, text).then(
        (reply) => (reply.ok ? line.getState().close() : line.getState().fail(reply.error)),
        (err: unknown) => line.getState().fail(String(err)),
      );
      return;
    }
    if (data === '\x7f' || data === '\b') {
      line.getState().back();
      return;
    }
    line.getState().type(printableOf(data));
  };
  // A chunk may hold several keys (typed fast, or `t` and Enter together): one at a time; an escape sequence (an arrow) is not text.
  return (id, data, ended) => {
    if (data.startsWith(ESC) && data.length > 1) return;
    for (const ch of data) {
      if (ended === undefined) key(id, ch);
      else endedKey(id, ch, ended);
    }
  };
}

/** The printable part of typed bytes (a paste's newlines become spaces). */
function printableOf(data: string): string {
  return data.replace(/[\r\n\t]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

/** The steering line's row for a panel `cols` wide: label, text with a reverse-video cursor, then the error. */
export function steerRow(panel: number, text: string, cols: number, error?: string, busy = false): string {
  // Nothing typed and an error (the agent has ended): the error takes the row, the panel's number before it.
  if (error && text === '') return `\x1b[1;35m #${panel} \x1b[0;31m${[...`✗ ${error}`].slice(0, Math.max(0, cols - 3 - String(panel).length)).join('')}\x1b[0m`;
  const label = ` steer #${panel} ▸ `;
  const note = error ? ` ✗ ${error}` : busy ? ' · sending…' : ' · Enter sends, Esc cancels';
  const room = Math.max(1, cols - label.length - 1);
  const shown = [...text].slice(-room).join('');
  const rest = Math.max(0, cols - label.length - shown.length - 1);
  const tail = [...note].slice(0, rest).join('');
  return `\x1b[1;35m${label}\x1b[0m${shown}\x1b[7m \x1b[27m${error ? '\x1b[31m' : '\x1b[90m'}${tail}\x1b[0m`;
}
