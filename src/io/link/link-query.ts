/**
 * The two short conversations on a link that attach no terminal: asking a
 * cockpit what it runs (`tai ls`), and ending it (`tai kill`).
 */
import { encodeJson, FRAME, FrameReader, LINK_VERSION, payloadJson, type CockpitInfo, type Frame } from '../../core/protocol/link-frames.js';
import { connectLink } from './link-client.js';
import { cardAlive, type CockpitCard } from './link-place.js';

/** How long `tai ls` waits for a cockpit's answer. */
const QUERY_WAIT_MS = 2_000;

/** How long `tai kill` waits for a cockpit to end (its agents' soft stop, then the hard one). */
const KILL_WAIT_MS = 30_000;

/** What the cockpit at `link` says of itself; undefined when it does not answer in time. */
export async function queryCockpit(link: string): Promise<CockpitInfo | undefined> {
  try {
    const frame = await converse(link, 'query', QUERY_WAIT_MS);
    return frame?.type === FRAME.info ? (payloadJson(frame) as CockpitInfo) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ends the cockpit of `card` over its link and resolves once its process has
 * gone (the farewell comes before the server has written its end); throws
 * when it does not end within KILL_WAIT_MS.
 */
export async function killCockpit(card: CockpitCard & { readonly link: string }): Promise<void> {
  const deadline = Date.now() + KILL_WAIT_MS;
  const frame = await converse(card.link, 'kill', KILL_WAIT_MS);
  if (frame === undefined) throw new Error(`the cockpit did not end within ${KILL_WAIT_MS / 1000}s`);
  await gone(card, deadline, KILL_WAIT_MS);
}

/**
 * Ends a cockpit that runs in one process (no link): SIGTERM, which it
 * answers as its main program's end (agents stopped softly, then hard);
 * resolves once it has gone, throws when it has not within KILL_WAIT_MS.
 */
export async function killOneProcess(card: CockpitCard, waitMs = KILL_WAIT_MS): Promise<void> {
  if (!cardAlive(card)) return;
  process.kill(card.pid, 'SIGTERM');
  await gone(card, Date.now() + waitMs, waitMs);
}

/** Resolves once the process of `card` has gone; throws past `deadline`. */
async function gone(card: CockpitCard, deadline: number, waitMs: number): Promise<void> {
  while (cardAlive(card)) {
    if (Date.now() > deadline) throw new Error(`the cockpit did not end within ${waitMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends a hello of `mode` and resolves with the first frame back (undefined: none in time, or the link closed). */
async function converse(link: string, mode: 'query' | 'kill', waitMs: number): Promise<Frame | undefined> {
  const socket = await connectLink(link);
  socket.write(encodeJson(FRAME.hello, { version: LINK_VERSION, mode }));
  return new Promise((resolve) => {
    const reader = new FrameReader();
    const timer = setTimeout(() => done(undefined), waitMs);
    const done = (frame: Frame | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(frame);
    };
    socket.on('data', (chunk: Buffer) => {
      const [frame] = reader.push(chunk).frames;
      if (frame !== undefined) done(frame);
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}
