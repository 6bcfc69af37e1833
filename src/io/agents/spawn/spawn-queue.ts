/**
 * `tai spawn --queue`: a spawn refused at the cap waits for a free slot, in order, visibly (docs/lanes.md, "The
 * queue: fanning out past the cap"). Each waiter holds a `spawn_queue` row, so every tai process sees one queue:
 * only the oldest live ticket retries, `tai status` lists them, `tai cancel qN` removes one. The cap stays where
 * it is enforced; the queue only retries on its refusal.
 */
import { pidAlive } from '../../storage/agents-store.js';
import { guardBusy, migrate, type StateDb } from '../../storage/state-db.js';

/** A queued spawn retries this often while its ticket is the oldest. */
export const QUEUE_RETRY_MS = 1_000;

/** One waiting spawn. */
export interface QueueTicket {
  readonly id: number;
  readonly pid: number;
  readonly label: string;
  readonly task: string;
  readonly queuedAt: number;
}

const SCHEMA = [
  `CREATE TABLE spawn_queue (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     pid INTEGER NOT NULL,
     label TEXT NOT NULL,
     task TEXT NOT NULL,
     queued_at INTEGER NOT NULL)`,
];

interface Row {
  id: number;
  pid: number;
  label: string;
  task: string;
  queued_at: number;
}

/** The machine's one queue of spawns waiting for a slot. */
export class SpawnQueue {
  constructor(readonly db: StateDb, private readonly alive: (pid: number) => boolean = pidAlive) {
    migrate(db, 'spawn-queue/1', SCHEMA);
  }

  /** Takes a ticket at the back of the queue. */
  enqueue(label: string, task: string, now: number, pid: number = process.pid): QueueTicket {
    const info = guardBusy(this.db, () =>
      this.db.prepare('INSERT INTO spawn_queue (pid, label, task, queued_at) VALUES (?, ?, ?, ?)').run(pid, label, task, now),
    );
    return { id: Number(info.lastInsertRowid), pid, label, task, queuedAt: now };
  }

  /** The waiting tickets, oldest first; tickets of processes that are gone are removed. */
  list(): QueueTicket[] {
    const rows = this.db.prepare<[], Row>('SELECT * FROM spawn_queue ORDER BY id').all();
    const live: QueueTicket[] = [];
    for (const row of rows) {
      if (this.alive(row.pid)) live.push({ id: row.id, pid: row.pid, label: row.label, task: row.task, queuedAt: row.queued_at });
      else this.remove(row.id);
    }
    return live;
  }

  /** True while the ticket is still queued. */
  has(id: number): boolean {
    return this.db.prepare<[number], Row>('SELECT * FROM spawn_queue WHERE id = ?').get(id) !== undefined;
  }

  /** How many live tickets are ahead of this one (0: it is the one to retry). */
  ahead(id: number): number {
    return this.list().filter((t) => t.id < id).length;
  }

  /** Removes a ticket (started, or cancelled); false when it was not there. */
  remove(id: number): boolean {
    return guardBusy(this.db, () => this.db.prepare('DELETE FROM spawn_queue WHERE id = ?').run(id).changes === 1);
  }
}

/** How a queued spawn ended. */
export type QueuedEnd<T> = { readonly kind: 'started'; readonly value: T } | { readonly kind: 'cancelled' };

/** What waiting in the queue needs: the attempt, how to know a refusal, and the wait between tries. */
export interface QueueWait<T> {
  readonly queue: SpawnQueue;
  readonly ticket: QueueTicket;
  /** One try; resolves `undefined` when refused at the cap. */
  attempt(): Promise<T | undefined>;
  /** Waits before the next look at the queue (a real timer; tests pass their own). */
  pause(ms: number): Promise<void>;
  /** True once the waiter was interrupted (Ctrl-C). */
  interrupted(): boolean;
}

/** Waits until the ticket is the oldest and its attempt is not refused; the ticket is gone at the end either way. */
export async function waitInQueue<T>(wait: QueueWait<T>): Promise<QueuedEnd<T>> {
  const { queue, ticket } = wait;
  try {
    for (;;) {
      if (wait.interrupted() || !queue.has(ticket.id)) return { kind: 'cancelled' };
      if (queue.ahead(ticket.id) === 0) {
        const value = await wait.attempt();
        if (value !== undefined) return { kind: 'started', value };
      }
      await wait.pause(QUEUE_RETRY_MS);
    }
  } finally {
    queue.remove(ticket.id);
  }
}
