/**
 * `npm run bench -- stall`: the longest the event loop is held while an
 * agent prints a long text without spaces, through the server's own path in
 * one process: the agent service (transcripts on a real state database), the
 * board with real @xterm/headless screens and the real board clock. Cases:
 * 1 MiB of 0xFF from a command agent (as pipe reads bring it), the same as one
 * event (an ACP agent's message), a generated mix of scripts and emoji
 * sequences as one event, a 20 MB result (the record's write), and 8 agents
 * started at once (each a panel's screen, a process, a transcript).
 * Measured with perf_hooks.monitorEventLoopDelay (10 ms resolution): the
 * longest delay and the 99th percentile while the text goes through, and the
 * time until its panel has it all; and the CPU of the costliest turns
 * (callback-cpu.ts), which the machine's load does not lengthen.
 * `TAI_STALL_TREE=DIR`: measure another build's dist/ (main's, say) with this
 * harness. A benchmark reports; it never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { LocalAgentService } from '../../src/io/agents/agent-service.js';
import { recordTurns } from './callback-cpu.js';

/** The dist/ measured: this build's, or TAI_STALL_TREE's. */
const TREE = process.env['TAI_STALL_TREE'] ? pathToFileURL(`${process.env['TAI_STALL_TREE'].replace(/\/$/, '')}/`).href : new URL('../../', import.meta.url).href;

/** The modules of the server's path, from the tree measured. */
async function treeModules() {
  const at = <T>(path: string): Promise<T> => import(new URL(path, TREE).href) as Promise<T>;
  return {
    ...(await at<typeof import('../../store/board.js')>('store/board.js')),
    ...(await at<typeof import('../../src/io/cockpit/board-clock.js')>('src/io/cockpit/board-clock.js')),
    ...(await at<typeof import('../../src/io/terminal/screen.js')>('src/io/terminal/screen.js')),
    ...(await at<typeof import('../../src/io/agents/agent-service.js')>('src/io/agents/agent-service.js')),
    ...(await at<typeof import('../../src/io/storage/state-db.js')>('src/io/storage/state-db.js')),
    ...(await at<typeof import('../../src/io/storage/records.js')>('src/io/storage/records.js')),
    ...(await at<typeof import('../../src/io/storage/agents-store.js')>('src/io/storage/agents-store.js')),
    ...(await at<typeof import('../../src/io/storage/transcripts.js')>('src/io/storage/transcripts.js')),
  };
}

const MIB = 1 << 20;

/** A run without spaces of scripts and emoji sequences, the same every run. */
function mixedRun(units: number): string {
  const atoms = ['e\u0301', 'क्षि', 'กิ่', 'سلام', '\u1100\u1161\u11a8', '👨‍👩‍👧‍👦', '🇫🇷', '👍🏽', '1️⃣', '漢字', '\ufffd', '\u200d', 'Ω', '🏳️‍🌈'];
  let seed = 7;
  let s = '';
  while (s.length < units) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += atoms[seed % atoms.length];
  }
  return s;
}

interface Case {
  readonly name: string;
  readonly units: number;
  /** Starts the agent; resolves when its result is in. */
  readonly start: (service: LocalAgentService) => Promise<void>;
}

const FF = new TextDecoder().decode(new Uint8Array(MIB).fill(0xff));

const CASES: readonly Case[] = [
  {
    name: '1 MiB of 0xFF from a command agent (pipe reads)',
    units: MIB,
    start: async (service) => {
      const { id } = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['/bin/sh', '-c', `head -c ${MIB} /dev/zero | tr '\\000' '\\377'`] }, Date.now());
      await service.poll(id, 120_000);
    },
  },
  {
    name: '1 MiB of 0xFF as one event',
    units: MIB,
    start: async (service) => {
      const { id } = service.spawnWorker({ label: 'ff' }, async (_signal, emit) => {
        emit({ type: 'text', text: FF });
        return 'ok';
      }, Date.now());
      await service.poll(id, 120_000);
    },
  },
  {
    name: 'a mix of scripts and emoji, 256 Ki units as one event',
    units: 256 * 1024,
    start: async (service) => {
      const mix = mixedRun(256 * 1024);
      const { id } = service.spawnWorker({ label: 'mix' }, async (_signal, emit) => {
        emit({ type: 'text', text: mix });
        return 'ok';
      }, Date.now());
      await service.poll(id, 120_000);
    },
  },
  {
    name: 'a 20 MB result (words), stored as a record',
    units: 20_000_000,
    start: async (service) => {
      const words = 'a result of words '.repeat(20_000_000 / 18);
      const { id } = service.spawnWorker({ label: 'big' }, async () => words, Date.now());
      await service.poll(id, 120_000);
    },
  },
  {
    name: 'a 20 MB result (words) from a command agent (pipe reads, kept to its ends)',
    units: 20_000_000,
    start: async (service) => {
      const { id } = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['/bin/sh', '-c', `yes 'a result of words' | head -c 20000000`] }, Date.now());
      await service.poll(id, 120_000);
    },
  },
  {
    name: '8 command agents started at once',
    units: 8,
    start: async (service) => {
      const ids: number[] = [];
      for (let k = 0; k < 8; k++) ids.push((await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['/bin/sh', '-c', `echo agent ${k} started`] }, Date.now())).id);
      for (const id of ids) await service.poll(id, 120_000);
    },
  },
];

/** Runs every case and prints the table. */
export async function run(): Promise<void> {
  const out = (l: string): boolean => process.stdout.write(`${l}\n`);
  out('\n## stall: the event loop while an agent prints a long text without spaces (agent service, board, xterm screens, board clock)\n');
  const m = await treeModules();
  out(`tree: ${new URL(TREE).pathname}\n`);
  out('| case | longest loop delay ms | p99 ms | mean ms | until the panel had it all, s | costliest turns, CPU ms (wall ms, task) | turns over 16 / 33 ms CPU | longest GC pause ms |');
  out('|---|---|---|---|---|---|---|---|');
  // A first short run loads every module (the server has them loaded long before an agent floods it).
  const warm: Case = {
    name: 'warm-up',
    units: 0,
    start: async (service) => {
      const { id } = service.spawnWorker({ label: 'warm' }, async (_signal, emit) => {
        emit({ type: 'text', text: mixedRun(8192) });
        return 'x'.repeat(10_000);
      }, Date.now());
      await service.poll(id, 120_000);
    },
  };
  const only = process.env['TAI_STALL_CASE'];
  for (const c of [warm, ...CASES.filter((_, k) => only === undefined || String(k + 1) === only)]) {
    const dir = mkdtempSync(join(tmpdir(), 'tai-stall-'));
    const db = m.openStateDb(join(dir, 'tai.db'));
    const board = m.createBoard({ createScreen: m.xtermScreens, cols: 160, rows: 60, statusLine: true });
    const clock = m.startBoardClock(board);
    const service = new m.LocalAgentService({ board, records: new m.RecordStore(db), agents: new m.AgentsStore(db), transcripts: new m.TranscriptStore(db), stateDir: dir });
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    // The histogram counts from its second sample: let it take a few before the text comes.
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    // V8's pauses, inside some turn: how much of a costly turn is the collector's.
    let gcMax = 0;
    const gcs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration);
    });
    gcs.observe({ entryTypes: ['gc'] });
    const cpu = recordTurns();
    // The case starts in a callback of its own, so that the recorder counts it.
    await new Promise((r) => setImmediate(r));
    await c.start(service);
    // Until the panel has formatted and drawn it all.
    while (board.getState().pending()) await new Promise((r) => setTimeout(r, 25));
    const costs = cpu.stop();
    await new Promise((r) => setImmediate(r));
    gcs.disconnect();
    h.disable();
    const seconds = (performance.now() - t0) / 1000;
    const cost = (k: { cpuMs: number; wallMs: number; what: string }): string => `${k.cpuMs.toFixed(1)} (${k.wallMs.toFixed(1)}, ${k.what})`;
    const longest = costs.longest.slice(0, 3).map(cost).join('; ');
    if (process.env['TAI_STALL_DETAIL'] && costs.longestWall) process.stderr.write(`${c.name}: longest by wall ${cost(costs.longestWall)}, ${costs.turns} turns, CPU ${costs.insideMs.toFixed(0)} ms in their callbacks of ${costs.totalMs.toFixed(0)} ms\n`);
    if (c !== warm) out(`| ${c.name} | ${(h.max / 1e6).toFixed(0)} | ${(h.percentile(99) / 1e6).toFixed(0)} | ${(h.mean / 1e6).toFixed(1)} | ${seconds.toFixed(1)} | ${longest} | ${costs.over16} / ${costs.over33} | ${gcMax.toFixed(1)} |`);
    clock.stop();
    service.dispose();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  out(`\nload average at the end: ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
}
