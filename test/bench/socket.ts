/**
 * Control-socket benchmark: vpane_write round trips at a fixed
 * request rate with 8 feed panes streaming, through the real server, the
 * real board, real @xterm/headless screens and the real flush clock.
 *
 * Prints, per phase: the rate asked for and achieved, round-trip p50/p99/max
 * (from the moment a request is due, so a stalled server cannot hide its
 * queue), and the board's flushes that wrote per second, which must stay
 * at or under the flush cap (40/s) however many writes arrive. Phases: one connection per request (the
 * original's way) and one long-lived connection, at 1000 requests/s; one
 * connection at 5000 requests/s; then a flood of 16 connections each sending
 * its next write as soon as the last is answered. Client and server share
 * this process, so the latencies include the client's own work. A benchmark
 * reports; it never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ORCH_FLUSH_INTERVAL } from '../../src/core/policy.js';
import { startBoardClock } from '../../src/io/cockpit/board-clock.js';
import { call, callRaw, ControlConnection } from '../../src/io/socket/control-client.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';
import { startControlServer } from '../../src/io/socket/socket-server.js';
import { createBoard } from '../../store/board.js';

/** Options of the socket benchmark. */
export interface SocketBenchOptions {
  /** Seconds per phase. */
  readonly seconds?: number;
  readonly panes?: number;
  readonly rate?: number;
  readonly floodRate?: number;
  /** Connections of the flood phase. */
  readonly floodClients?: number;
}

interface PhaseResult {
  readonly name: string;
  readonly target: number;
  readonly achieved: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly errors: number;
  /** The first failure's message, if any failed. */
  readonly firstError: string;
  readonly flushesPerSecond: number;
  readonly bytesPerSecond: number;
}

const FLUSH_CAP = 1000 / ORCH_FLUSH_INTERVAL;

/** A line of streamed agent output with some colour, about 80 bytes. */
function chunk(n: number): string {
  return `\u001b[32m⏺\u001b[0m step ${n}: reading src/core/layout.ts and running the tests · ok\r\n`;
}

/** Runs the benchmark and prints its table. */
export async function run(opts: SocketBenchOptions = {}): Promise<void> {
  const seconds = opts.seconds ?? 5;
  const panes = opts.panes ?? 8;
  const rate = opts.rate ?? 1_000;
  const floodRate = opts.floodRate ?? 5_000;
  const floodClients = opts.floodClients ?? 16;
  const dir = mkdtempSync(join(tmpdir(), 'tai-bench-'));
  const path = join(dir, 'control.sock');
  const board = createBoard({ createScreen: xtermScreens, cols: 200, rows: 80 });
  const server = await startControlServer({ board, path });
  const clock = startBoardClock(board);
  const ids: number[] = [];
  for (let i = 0; i < panes; i++) {
    const reply = await call(path, { cmd: 'vpane_open', label: `agent #${i + 1}`, header: ` ● agent #${i + 1} · running` });
    if (reply.ok) ids.push(reply.data.id);
  }

  const phase = async (name: string, target: number, persistent: boolean): Promise<PhaseResult> => {
    const conn = persistent ? await ControlConnection.open(path, { timeoutMs: 10_000 }) : undefined;
    const latencies: number[] = [];
    let errors = 0;
    let firstError = '';
    let sent = 0;
    const inflight = new Set<Promise<void>>();
    const flushes0 = board.counters.flushes;
    const bytes0 = board.counters.bytesWritten;
    const start = performance.now();
    const end = start + seconds * 1_000;
    while (performance.now() < end) {
      const due = Math.min(Math.floor(((performance.now() - start) / 1_000) * target), Math.floor(seconds * target));
      for (; sent < due; sent++) {
        const dueAt = start + (sent / target) * 1_000;
        const id = ids[sent % ids.length] ?? 1;
        const line = JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: id, data: chunk(sent), header: ` ● agent #${id} · running · ${sent}` }] });
        const p = (conn ? conn.raw(line, { timeoutMs: 10_000 }) : callRaw(path, line, { timeoutMs: 10_000 })).then(
          (reply) => {
            latencies.push(performance.now() - dueAt);
            if (!reply.startsWith('{"ok":true')) {
              errors++;
              firstError ||= reply;
            }
          },
          (err: unknown) => {
            errors++;
            firstError ||= err instanceof Error ? err.message : String(err);
          },
        );
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(inflight);
    const elapsed = (performance.now() - start) / 1_000;
    conn?.close();
    latencies.sort((a, b) => a - b);
    const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    return {
      name,
      target,
      achieved: latencies.length / elapsed,
      p50: at(0.5),
      p99: at(0.99),
      max: latencies[latencies.length - 1] ?? NaN,
      errors,
      firstError,
      flushesPerSecond: (board.counters.flushes - flushes0) / elapsed,
      bytesPerSecond: (board.counters.bytesWritten - bytes0) / elapsed,
    };
  };

  /** As fast as the server answers: `clients` connections, each sending its next write when the last is answered. */
  const flood = async (name: string, clients: number): Promise<PhaseResult> => {
    const latencies: number[] = [];
    let errors = 0;
    let firstError = '';
    let n = 0;
    const flushes0 = board.counters.flushes;
    const bytes0 = board.counters.bytesWritten;
    const start = performance.now();
    const end = start + seconds * 1_000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const conn = await ControlConnection.open(path, { timeoutMs: 10_000 });
        while (performance.now() < end) {
          const i = n++;
          const id = ids[i % ids.length] ?? 1;
          const t0 = performance.now();
          try {
            const reply = await conn.raw(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: id, data: chunk(i) }] }), { timeoutMs: 10_000 });
            latencies.push(performance.now() - t0);
            if (!reply.startsWith('{"ok":true')) {
              errors++;
              firstError ||= reply;
            }
          } catch (err) {
            errors++;
            firstError ||= err instanceof Error ? err.message : String(err);
            break;
          }
        }
        conn.close();
      }),
    );
    const elapsed = (performance.now() - start) / 1_000;
    latencies.sort((a, b) => a - b);
    const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    return {
      name,
      target: NaN,
      achieved: latencies.length / elapsed,
      p50: at(0.5),
      p99: at(0.99),
      max: latencies[latencies.length - 1] ?? NaN,
      errors,
      firstError,
      flushesPerSecond: (board.counters.flushes - flushes0) / elapsed,
      bytesPerSecond: (board.counters.bytesWritten - bytes0) / elapsed,
    };
  };

  const results = [
    await phase('one connection per request', rate, false),
    await phase('one connection, in sequence', rate, true),
    await phase(`one connection, in sequence, ${floodRate}/s`, floodRate, true),
    await flood(`flood: ${floodClients} connections, as fast as answered`, floodClients),
  ];
  clock.stop();
  await server.close();
  rmSync(dir, { recursive: true, force: true });

  const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '-');
  process.stdout.write(
    `\n## socket: vpane_write round trips, ${ids.length} feed panes streaming, ${seconds} s per phase\n\n` +
      `| phase | requests/s asked | achieved | p50 ms | p99 ms | max ms | errors | flushes/s (cap ${FLUSH_CAP}) | bytes to screens/s |\n` +
      '|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const r of results) {
    process.stdout.write(
      `| ${r.name} | ${Number.isNaN(r.target) ? 'max' : r.target} | ${r.achieved.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.errors} | ` +
        `${r.flushesPerSecond.toFixed(1)} | ${r.bytesPerSecond.toFixed(0)} |\n`,
    );
  }
  for (const r of results) if (r.errors > 0) process.stdout.write(`\n${r.name}: first failure: ${r.firstError}\n`);
  process.stdout.write(
    `\nserver: ${server.counters.connections} connections, ${server.counters.requests} requests, ` +
      `${server.counters.errorReplies} error replies, ${server.counters.writeFailures} failed writes\n`,
  );
}

const invoked = process.argv[1] ?? '';
if (invoked.endsWith('/bench/socket.js') || invoked.endsWith('/bench/socket.ts')) {
  const quick = process.argv.includes('--quick');
  await run({ seconds: quick ? 2 : 5 });
}
