/**
 * A lead's own queue of spawns refused at the cap (the spawn tool's `queue`):
 * every LEAD_QUEUE_MS the head is asked for again, in order; one that starts
 * becomes the lead's (its next `wait` hears of it), one refused for another
 * reason leaves the queue with its reason kept for the lead to read.
 */
import type { CommandOf } from '../../core/protocol/commands.js';
import type { LeadBackend } from './lead-backend.js';

/** How often the head of the queue is tried again (ms). */
export const LEAD_QUEUE_MS = 2_000;

/** Spawns waiting for a free slot. */
export class LeadQueue {
  readonly #waiting: { readonly command: CommandOf<'spawn'>; readonly label: string }[] = [];
  readonly #notes: string[] = [];
  #timer: NodeJS.Timeout | undefined;
  #busy = false;

  constructor(
    private readonly backend: LeadBackend,
    private readonly started: (id: number, label: string, lane: string | undefined) => void,
    private readonly everyMs = LEAD_QUEUE_MS,
  ) {}

  /** Queues a spawn; returns its place (1 for the next to start). */
  add(command: CommandOf<'spawn'>, label: string): number {
    this.#waiting.push({ command, label });
    this.#timer ??= setInterval(() => void this.#try(), this.everyMs);
    this.#timer.unref();
    return this.#waiting.length;
  }

  /** How many wait. */
  get size(): number {
    return this.#waiting.length;
  }

  /** What happened to queued spawns since last asked (started, or refused and dropped); emptied by reading. */
  takeNotes(): string[] {
    return this.#notes.splice(0);
  }

  /** Stops trying; what waits is dropped. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#waiting.splice(0);
  }

  async #try(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (let head = this.#waiting[0]; head !== undefined; head = this.#waiting[0]) {
        const reply = await this.backend.call(head.command).catch((err: unknown) => ({ ok: false as const, error: err instanceof Error ? err.message : String(err) }));
        if (!reply.ok && reply.error.startsWith('too many agents')) return;
        this.#waiting.shift();
        if (reply.ok) {
          this.started(reply.data.id, reply.data.label, reply.data.lane);
          this.#notes.push(`queued ${head.label} started as agent #${reply.data.id}`);
        } else this.#notes.push(`queued ${head.label} was not started: ${reply.error}`);
      }
      this.close();
    } finally {
      this.#busy = false;
    }
  }
}
