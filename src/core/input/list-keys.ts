/**
 * The open agent list's keys (prefix + w): move, jump, Enter opens, q / Esc close; y / n answer every open question of
 * the selected agent's tool with its first allow / reject option (docs/agents.md, "The inbox"); any other key is
 * ignored, as the list holds the keyboard while open.
 */

/** What a key asks of the open list. */
export type ListMove = 'up' | 'down' | 'first' | 'last' | 'open' | 'close' | 'allow-tool' | 'reject-tool';

const MOVES: ReadonlyMap<string, ListMove> = new Map<string, ListMove>([
  ['\x1b[A', 'up'],
  ['\x1bOA', 'up'],
  ['k', 'up'],
  ['\x1b[B', 'down'],
  ['\x1bOB', 'down'],
  ['j', 'down'],
  ['\x1b[H', 'first'],
  ['\x1bOH', 'first'],
  ['g', 'first'],
  ['\x1b[F', 'last'],
  ['\x1bOF', 'last'],
  ['G', 'last'],
  ['\r', 'open'],
  ['\n', 'open'],
  ['q', 'close'],
  ['y', 'allow-tool'],
  ['n', 'reject-tool'],
  ['\x1b', 'close'],
]);

/** What one key does in the open list, or undefined when it does nothing. */
export function listMove(key: string): ListMove | undefined {
  return MOVES.get(key);
}
