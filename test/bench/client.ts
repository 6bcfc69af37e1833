/**
 * `npm run bench -- client`: the two attach clients alone, the
 * native one (src/native/client.c) against the node one (TAI_NATIVE_CLIENT=0),
 * each run as `tai attach` runs it in a pty of its own, against a link
 * server in this process that echoes every input frame back as output (so
 * the cockpit's server, the pty of its main pane and the echoing program are
 * not in the figures). Rounds alternate the two clients:
 * - keys: a key written to the client's pty until its echo comes back, 30 ms
 *   apart, the first 30 not counted: p50 / p90 / p99;
 * - flood: 40 MiB of output frames, until the last byte is read from the pty.
 * A benchmark reports; it never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { encodeFrame, FRAME, FrameReader } from '../../src/core/protocol/link-frames.js';
import { builtClient } from '../../src/io/link/native-client.js';
import { delay } from './cockpit.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/attach-client.mjs');
const FLOOD = 40 * 1_048_576;
const KEYS = 300;
const WARM = 30;

type Kind = 'native' | 'node';

function client(kind: Kind, link: string) {
  const p = pty.spawn(process.execPath, [FIXTURE, link], { cols: 160, rows: 60, env: { ...(process.env as Record<string, string>), TAI_NATIVE_CLIENT: kind === 'node' ? '0' : '' } });
  const t = { pty: p, waiter: undefined as undefined | ((d: string) => void) };
  p.onData((d) => t.waiter?.(d));
  return t;
}

async function keys(kind: Kind, link: string): Promise<number[]> {
  const t = client(kind, link);
  await delay(800);
  const times: number[] = [];
  for (let i = 0; i < KEYS + WARM; i++) {
    const ch = String.fromCharCode(97 + (i % 26));
    const echoed = new Promise<void>((resolve) => (t.waiter = (d) => d.includes(ch) && resolve()));
    const t0 = performance.now();
    t.pty.write(ch);
    await echoed;
    if (i >= WARM) times.push(performance.now() - t0);
    await delay(30);
  }
  t.pty.kill('SIGKILL');
  return times.sort((a, b) => a - b);
}

async function flood(kind: Kind, link: string): Promise<number> {
  const t0 = performance.now();
  const t = client(kind, link);
  let tail = '';
  await new Promise<void>((resolve) => (t.waiter = (d) => (tail = (tail + d).slice(-8)).includes('END') && resolve()));
  t.pty.kill('SIGKILL');
  return performance.now() - t0;
}

/** Runs both clients against the echoing link and prints the table. */
export async function run(): Promise<void> {
  if (builtClient() === undefined) {
    process.stdout.write('client bench: the native client is not built (node src/native/build.mjs); skipped\n');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tai-bench-client-'));
  const link = join(dir, 'echo.link');
  let mode: 'echo' | 'flood' = 'echo';
  const chunk = encodeFrame(FRAME.output, Buffer.alloc(16_384, 'x'));
  const server = createServer((s) => {
    const reader = new FrameReader();
    s.on('error', () => {});
    s.on('data', (data: Buffer) => {
      for (const f of reader.push(data).frames) {
        if (f.type === FRAME.input) s.write(encodeFrame(FRAME.output, f.payload));
        if (f.type !== FRAME.hello || mode !== 'flood') continue;
        let sent = 0;
        const pump = (): void => {
          for (; sent < FLOOD; sent += chunk.length - 5) if (!s.write(chunk)) return void s.once('drain', pump);
          s.write(encodeFrame(FRAME.output, 'END'));
        };
        pump();
      }
    });
  });
  await new Promise<void>((r) => server.listen(link, r));
  const kinds: Kind[] = ['node', 'native', 'node', 'native'];
  const lat: Record<Kind, number[][]> = { node: [], native: [] };
  const fl: Record<Kind, number[]> = { node: [], native: [] };
  for (const kind of kinds) lat[kind].push(await keys(kind, link));
  mode = 'flood';
  for (const kind of kinds) fl[kind].push(await flood(kind, link));
  server.close();
  rmSync(dir, { recursive: true, force: true });
  const pct = (s: number[], p: number): string => (s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? NaN).toFixed(2);
  const keysRow = (k: Kind): string => lat[k].map((s) => `${pct(s, 50)} / ${pct(s, 90)} / ${pct(s, 99)}`).join(', ');
  const say = (l: string): void => void process.stdout.write(`${l}\n`);
  say('\n## the attach clients alone, against an echoing link (160x60)\n');
  say('| measure | native client | node client |');
  say('|---|---|---|');
  say(`| key to echo ms p50 / p90 / p99, each round | ${keysRow('native')} | ${keysRow('node')} |`);
  say(`| 40 MiB of output to the terminal: ms, each round | ${fl.native.map((n) => n.toFixed(0)).join(', ')} | ${fl.node.map((n) => n.toFixed(0)).join(', ')} |`);
}
