/**
 * Reading agents' output at a pace instead of on every write
 * (docs/performance.md). An agent streaming tokens writes its stdout about 50
 * times a second; read as it comes, eight of them wake the event loop 400
 * times a second, and each wake-up (epoll, libuv, the stream machinery, the
 * string decoder, then the board's flush, the screens' parse and a frame, each
 * on its own timer) costs far more than the few words it carries. A panel is
 * read, not typed into: text that reaches it in ten steps a second looks the
 * same as text that reaches it in fifty, and costs a fraction.
 *
 * Vocabulary:
 * - paced pipe: a child's pipe created with a high-water mark of one byte
 *   (`withPacedPipes`) and read in paused mode. Once one chunk waits in it
 *   the stream is "full", Node stops reading the pipe (readStop), and the
 *   kernel keeps what the agent writes meanwhile (a pipe holds 64 KiB).
 *   The 'readable' event asks the pacer for a turn.
 * - pacer: one timer for every paced pipe of the process. At its tick, every
 *   pipe that asked is drained; reading restarts, and what the kernel kept
 *   comes in one read. A tick comes PACE_MS after the first request, so the
 *   pacer sleeps while no agent writes (the idle cockpit costs nothing).
 * - flood: a read that came back half full or more (FLOOD_START_BYTES); the
 *   pipe is then read at once, as it fills, until a read comes back small
 *   (FLOOD_END_BYTES).
 * The main pane's pty and the control socket are never paced: keys and
 * programs talking to tai are answered at once.
 */
import { finished, getDefaultHighWaterMark, setDefaultHighWaterMark, type Readable } from 'node:stream';
import { idleCollection } from '../idle-collect.js';

/** How long an agent's output may wait to be read (a panel shows it at most this much later). */
export const PACE_MS = 100;

/**
 * A tick's read at least this large means the pipe was half full or more:
 * the agent floods (a large tool result, a dump), and the next reads follow
 * at once instead of at the pacer's ticks. Without it a flooding agent would
 * be held to 64 KiB per tick.
 */
export const FLOOD_START_BYTES = 32 * 1024;

/** A flood is over when a read comes back smaller than this (the agent writes slower than tai reads). */
export const FLOOD_END_BYTES = 4 * 1024;

/**
 * Runs `open`, which must create its child's stdio synchronously (as
 * `child_process.spawn` does), with a high-water mark of one byte for the
 * streams it creates, so that `pacedData` can leave the pipe unread between
 * ticks. Streams read in flowing mode ('data') behave as usual; a writable
 * stdin accepts every write, its `write` just returns false (asking for
 * 'drain') as soon as anything waits in it.
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
