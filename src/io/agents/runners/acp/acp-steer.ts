/**
 * Steering an ACP agent (docs/agents.md, "Steering"): a message the user sends while
 * a turn runs becomes the session's next `session/prompt` once the turn ends well, in the same panel; turns go on
 * until none is queued, one fails or a stop is asked. At most STEER_QUEUE_MAX wait.
 */
import { RequestError } from '../../../../core/errors.js';
import type { AcpTurn, TurnEnd } from './acp-session.js';
import type { EmitEvent } from '../runner.js';

/** Follow-up messages one spawn may have waiting. */
export const STEER_QUEUE_MAX = 8;

/** The turns of one spawn of an ACP agent, the first and the steered ones. */
export class SteeredTurns {
  readonly #queue: string[] = [];
  readonly #results: string[] = [];
  readonly #emit: EmitEvent;
  #current: AcpTurn;
  #stopped = false;
  #over = false;
  /** Settles with the end of the last turn. */
  readonly ended: Promise<TurnEnd>;

  constructor(first: AcpTurn, next: (prompt: string) => AcpTurn, emit: EmitEvent) {
    this.#current = first;
    this.#emit = emit;
    this.ended = this.#run(next);
  }

  async #run(next: (prompt: string) => AcpTurn): Promise<TurnEnd> {
    for (;;) {
      const end = await this.#current.ended;
      const message = this.#queue.shift();
      if (message === undefined || this.#stopped || !end.reusable || end.outcome.state !== 'done') {
        this.#over = true;
        if (message !== undefined) this.#emit({ type: 'note', text: `${this.#queue.length + 1} queued message(s) not sent: the turn ended ${end.outcome.summary}` });
        return end;
      }
      this.#results.push(this.#current.result());
      this.#emit({ type: 'note', text: `you: ${message}` });
      this.#current = next(message);
    }
  }

  /** The message text of every turn so far. */
  result(): string {
    return [...this.#results, this.#current.result()].filter((t) => t !== '').join('\n\n');
  }

  soft(): void {
    this.#stopped = true;
    this.#current.soft();
  }

  hard(): void {
    this.#stopped = true;
    this.#current.hard();
  }

  /** Queues a message for the next turn; refused once the last turn ended, after a stop, or past the bound. */
  steer(text: string): 'queued' {
    if (this.#over) throw new RequestError('its turn has ended');
    if (this.#stopped) throw new RequestError('it is stopping');
    if (this.#queue.length >= STEER_QUEUE_MAX) throw new RequestError(`${STEER_QUEUE_MAX} messages wait already for its next turn`);
    this.#queue.push(text);
    this.#emit({ type: 'note', text: `queued for the next turn: ${text}` });
    return 'queued';
  }
}
