/**
 * `npm run bench -- stall`: the longest the event loop is held while an
 * agent prints a long text without spaces, through the server's own path in
 * one process: the agent service (transcripts on a real state database), the
 * board with real @xterm/headless screens and the real board clock. Cases:
 * 1 MiB of 0xFF from a command agent (as pipe reads bring it), the same as one
 * event (an ACP agent's message), a generated mix of scripts and emoji
 * sequences as one event, and a 20 MB result (the record's write).
 * Measured with perf_hooks.monitorEventLoopDelay (10 ms resolution): the
 * longest delay and the 99th percentile while the
 * text goes through, and the time until its panel has it all.
 * A benchmark reports; it never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createBoard } from '../../store/board.js';
import { startBoardClock } from '../../src/io/cockpit/board-clock.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';
import { LocalAgentService } from '../../src/io/agents/agent-service.js';
import { openStateDb } from '../../src/io/storage/state-db.js';
import { RecordStore } from '../../src/io/storage/records.js';
import { AgentsStore } from '../../src/io/storage/agents-store.js';
import { TranscriptStore } from '../../src/io/storage/transcripts.js';

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
];

/** Runs every case and prints the table. */
export async function run(): Promise<void> {
  const out = (l: string): boolean => process.stdout.write(`${l}\n`);
  out('\n## stall: the event loop while an agent prints a long text without spaces (agent service, board, xterm screens, board clock)\n');
  out('| case | longest loop delay ms | p99 ms | mean ms | until the panel had it all, s |');
  out('|---|---|---|---|---|');
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
    const db = openStateDb(join(dir, 'tai.db'));
    const board = createBoard({ createScreen: xtermScreens, cols: 160, rows: 60, statusLine: true });
    const clock = startBoardClock(board);
    const service = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), transcripts: new TranscriptStore(db), stateDir: dir });
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    // The histogram counts from its second sample: let it take a few before the text comes.
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    await c.start(service);
    // Until the panel has formatted and drawn it all.
    while (board.getState().pending()) await new Promise((r) => setTimeout(r, 25));
    h.disable();
    const seconds = (performance.now() - t0) / 1000;
    if (c !== warm) out(`| ${c.name} | ${(h.max / 1e6).toFixed(0)} | ${(h.percentile(99) / 1e6).toFixed(0)} | ${(h.mean / 1e6).toFixed(1)} | ${seconds.toFixed(1)} |`);
    clock.stop();
    service.dispose();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  out(`\nload average at the end: ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
}
