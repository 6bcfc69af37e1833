/**
 * Reads agents' pipes at a pace, not on every write: a panel is read, not typed into, and text arriving in ten steps
 * a second looks the same as in fifty, for a fraction of the wake-ups (docs/performance.md, "Optimisations that stay").
 * A one-byte high-water mark leaves the writes in the kernel between the pacer's ticks; a flood is read at once. The
 * main pane's pty and the control socket are never paced: keys and programs talking to tai are answered at once.
 */
import { finished, getDefaultHighWaterMark, setDefaultHighWaterMark, type Readable } from 'node:stream';
import { idleCollection } from '../idle-collect.js';

/** How long an agent's output may wait to be read (a panel shows it at most this much later). */
export const PACE_MS = 100;

/**
 * A tick's read this large (half a 64 KiB pipe) means the agent floods: the next reads follow at once, not at
 * the pacer's ticks, or a flood would be held to one pipe a tick.
 */
export const FLOOD_START_BYTES = 32 * 1024;

/** A flood is over when a read comes back smaller than this (the agent writes slower than tai reads). */
export const FLOOD_END_BYTES = 4 * 1024;

/**
 * Runs `open`, which must create its child's stdio synchronously (as `spawn` does), with a one-byte high-water
 * mark, so that `pacedData` can leave the pipe unread between ticks. Flowing streams behave as usual; a stdin
 * accepts every write, its `write` just returns false as soon as anything waits in it.
 */
export function withPacedPipes<T>(open: () => T): T {
  const saved = getDefaultHighWaterMark(false);
  setDefaultHighWaterMark(false, 1);
  try {
    return open();
  } finally {
    setDefaultHighWaterMark(false, saved);
  }
}

const asked = new Set<() => void>();
let timer: NodeJS.Timeout | undefined;
let ticks = 0;

/** How many times the pacer has ticked in this process (a flood should take few). */
export function pacerTicks(): number {
  return ticks;
}

function tick(): void {
  timer = undefined;
  ticks++;
  // A full collection once the agents' output stops, when gc is exposed (idle-collect.ts).
  idleCollection.activity();
  const drains = [...asked];
  asked.clear();
  for (const drain of drains) drain();
}

function ask(drain: () => void): void {
  asked.add(drain);
  // Not unref'd: a pipe Node stopped reading keeps nothing alive, and data waits
  // in it (an agent that exited right after writing must still be read whole).
  timer ??= setTimeout(tick, PACE_MS);
}

/**
 * Calls `onData` with the stream's data at the pacer's ticks, each tick's
 * data in one piece (a Buffer, or a string after `setEncoding`). 'end' and
 * 'close' come as usual, after the last data was handed over.
 */
export function pacedData<C extends Buffer | string>(stream: Readable, onData: (chunk: C) => void): void {
  let flooding = false;
  const drain = (): void => {
    let size = 0;
    let chunk: C | null;
    while ((chunk = stream.read() as C | null) !== null) {
      size += chunk.length;
      onData(chunk);
    }
    flooding = size >= (flooding ? FLOOD_END_BYTES : FLOOD_START_BYTES);
  };
  // A flood is read as fast as it comes (as before pacing): holding it would only stall the agent.
  stream.on('readable', () => (flooding ? setImmediate(drain) : ask(drain)));
}

/** The stream's bytes as a web stream fed at the pacer's ticks (the ACP SDK reads web streams). */
export function pacedWebStream(stream: Readable): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      pacedData<Buffer>(stream, (chunk) => {
        if (open) controller.enqueue(chunk);
      });
      finished(stream, (err) => {
        if (!open) return;
        open = false;
        if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') controller.error(err);
        else controller.close();
      });
    },
    cancel() {
      open = false;
      stream.destroy();
    },
  });
}
