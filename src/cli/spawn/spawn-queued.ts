/**
 * `tai spawn --queue`: a spawn refused at the cap takes a ticket in the machine's queue
 * (src/io/agents/spawn/spawn-queue.ts) and retries, oldest first, until a slot is free; Ctrl-C or `tai cancel qN`
 * gives up (130). Without --queue the refusal stands (75, docs/spec.md, "Supervision").
 */
import { join } from 'node:path';
import { SpawnQueue, waitInQueue } from '../../io/agents/spawn/spawn-queue.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../../io/storage/state-db.js';

/** What waiting needs of the CLI's io (src/cli/spawn/spawn.ts CliIo). */
export interface QueueIo {
  readonly env: NodeJS.ProcessEnv;
  onInterrupt(handler: () => void): () => void;
}
import { field, type CliOutput } from '../output.js';

/** Waits in the queue and retries `attempt` (undefined: refused at the cap again); null when cancelled. */
export async function spawnQueued<T>(label: string, task: string, attempt: () => Promise<T | undefined>, io: QueueIo, out: CliOutput): Promise<T | null> {
  const db = openStateDb(join(stateDir(io.env), STATE_DB_FILE));
  let interrupted = false;
  let wake: (() => void) | undefined;
  const off = io.onInterrupt(() => {
    interrupted = true;
    wake?.();
  });
  try {
    const queue = new SpawnQueue(db);
    const ticket = queue.enqueue(label, task, Date.now());
    out.warn(`tai: every slot is taken: queued as q${ticket.id} (${queue.ahead(ticket.id)} ahead); it starts when one is free (Ctrl-C or tai cancel q${ticket.id} gives up)\n`);
    const end = await waitInQueue({
      queue,
      ticket,
      attempt,
      interrupted: () => interrupted,
      pause: (ms) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        }),
    });
    if (end.kind === 'cancelled') {
      out.warn(`tai: q${ticket.id} (${field(label)}) left the queue without starting\n`);
      return null;
    }
    return end.value;
  } finally {
    off();
    db.close();
  }
}
