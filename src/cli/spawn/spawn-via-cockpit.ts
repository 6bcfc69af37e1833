/**
 * `tai spawn` inside a cockpit: the request goes over the control socket (the
 * panel appears there; a refusal at the cap waits in the queue with
 * `--queue`), then the result is long-polled, with the live status line on a
 * terminal's stderr and Ctrl-C asking the cockpit to stop the agent.
 */
import { CANNOT_START_EXIT } from '../../io/agents/spawn/startable.js';
import { EXIT_CODES, EXIT_REFUSED, EXIT_STORAGE } from '../../io/agents/agent-results.js';
import { call, describeCallError } from '../../io/socket/control-client.js';
import type { CliIo } from '../cli-io.js';
import { field, type CliOutput } from '../output.js';
import { spawnQueued } from './spawn-queued.js';
import { laneLines, printResult, type QueuedSpawn, type ResultShape } from './spawn-result.js';
import { cockpitSampler, startLiveStatus } from './spawn-status.js';

/** Seconds one poll waits on the socket (below the server's idle timeout). */
export const POLL_WAIT_S = 8;

/** Asks the cockpit to start the agent, then long-polls its result. */
export async function viaCockpit(socket: string, queued: QueuedSpawn, detach: boolean, shape: ResultShape, io: CliIo, out: CliOutput): Promise<number> {
  let id: number;
  const { queue, ...request } = queued;
  try {
    let reply = await call(socket, request);
    if (!reply.ok && queue && reply.error.startsWith('too many agents')) {
      const again = await spawnQueued(request.label ?? request.argv.join(' '), request.prompt ?? '', async () => {
        const r = await call(socket, request);
        return !r.ok && r.error.startsWith('too many agents') ? undefined : r;
      }, io, out);
      if (again === null) return EXIT_CODES.cancelled;
      reply = again;
    }
    if (!reply.ok) {
      out.warn(`tai spawn: ${field(reply.error)}\n`);
      if (reply.error.startsWith('cannot start ')) return CANNOT_START_EXIT;
      return reply.error.startsWith('too many agents') ? EXIT_REFUSED : reply.error.includes('the state database ') ? EXIT_STORAGE : 1;
    }
    id = reply.data.id;
    if (detach) {
      if (shape === 'json') out.json(reply.data);
      else out.say(`${id}\n`);
      return 0;
    }
    out.warn(`tai: agent #${id} started${reply.data.shown ? '' : ` (no panel: ${field(reply.data.reason ?? 'hidden')})`}\n`);
    laneLines(reply.data, out);
  } catch (err) {
    const { exitCode, message } = describeCallError(err);
    out.warn(`tai spawn: ${field(message)}\n`);
    return exitCode;
  }
  const sampler = io.errIsTerminal ? cockpitSampler(socket, id) : undefined;
  const live = sampler ? startLiveStatus(id, { out, columns: io.errColumns }, sampler.sample) : undefined;
  let interrupts = 0;
  const off = io.onInterrupt(() => {
    interrupts++;
    live?.clear();
    if (interrupts === 1) {
      out.warn(`tai: stopping agent #${id} (Ctrl-C again to stop waiting)\n`);
      void call(socket, { cmd: 'cancel', id, reason: 'interrupted (Ctrl-C)' }).catch(() => {});
    }
  });
  try {
    for (;;) {
      const reply = await call(socket, { cmd: 'poll', id, wait: POLL_WAIT_S });
      if (!reply.ok) {
        live?.stop();
        out.warn(`tai spawn: ${field(reply.error)}\n`);
        return 1;
      }
      if (reply.data.finished) {
        live?.stop();
        return printResult(reply.data, shape, out);
      }
      if (interrupts > 1) return EXIT_CODES.cancelled;
    }
  } catch (err) {
    live?.stop();
    const { exitCode, message } = describeCallError(err);
    out.warn(`tai spawn: ${field(message)}\n`);
    return exitCode;
  } finally {
    live?.stop();
    sampler?.stop();
    off();
  }
}
