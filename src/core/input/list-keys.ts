/**
 * The open agent list's keys (prefix + w): arrows and j/k move, Home/End and
 * g/G jump, Enter opens the selected agent, q and Esc close the list; y / n
 * answer every open question of the same tool as the selected agent's open
 * question with its first allow / reject option (docs/agents.md, "The
 * inbox"); any other key is ignored (the list holds the keyboard while open).
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
