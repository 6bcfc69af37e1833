/**
 * Instructions per streamed token, counted by valgrind's callgrind: the
 * streaming path in one process in simulated time (a real board with its
 * status line, real screens, the real drawing and output stage; 8 demo agents'
 * JSON lines at 500 tokens/s, read as the drain reads them every 100 ms, one
 * flush and one frame a read). The work marks its phases by calling
 * `process.cpuUsage()` (libuv's `uv_getrusage`), before which callgrind dumps
 * its counts: each dump is one phase's. V8 runs with `--predictable` and fixed
 * seeds, so a run repeats the last one's counts within 1 %; a collection counts
 * in the phase whose allocation set it off. `npm run bench -- instructions`
 * (two runs; `--quick` one); TAI_INSTR_TREE=DIR counts another tree's build.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const AGENTS = 8;
const RATE = 500;
/** Lines a demo agent writes a read (one every 20 ms), tokens a line. */
const LINES = 5;
const PER_LINE = (RATE * 20) / 1000;
const WARM_STEPS = 30;
const STEPS = 50;
const PHASES = ['make', 'text', 'flush', 'frame'] as const;

/** The demo agent's words and line shape (src/demo-agent.ts). */
const WORDS = 'the agent reads the code then plans a small change runs the tests and reports what it found'.split(' ');

/** Options of the instruction count. */
export interface InstructionsOptions {
  readonly runs?: number;
}

/** Runs the count `runs` times under callgrind and prints the table. */
export async function run(opts: InstructionsOptions = {}): Promise<void> {
  const tree = process.env['TAI_INSTR_TREE'];
  const script = tree ? join(tree, 'dist/test/bench/instructions.js') : fileURLToPath(import.meta.url);
  const rows: string[] = [];
  for (let r = 0; r < (opts.runs ?? 1); r++) rows.push(countOnce(script));
  const tokens = STEPS * AGENTS * LINES * PER_LINE;
  process.stdout.write(`\n## instructions: ${AGENTS} agents x ${RATE} tok/s, ${STEPS} reads after ${WARM_STEPS} (${tokens} tokens)${tree ? `, ${tree}` : ''}\n\n`);
  process.stdout.write('| run | text / token | flush+publish / token | frame / token | total / token | warm-up total / token | start-up M |\n|---|---|---|---|---|---|---|\n');
  rows.forEach((row, i) => process.stdout.write(`| ${i + 1} | ${row} |\n`));
}

/** One run under callgrind: a row of the table. */
function countOnce(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tai-instr-'));
  try {
    const node = ['--expose-gc', '--predictable', '--hash-seed=1', '--random-seed=1', '--max-semi-space-size=8', '--max-old-space-size=2047'];
    const vg = ['--tool=callgrind', `--callgrind-out-file=${join(dir, 'cg')}`, '--dump-before=uv_getrusage', '--dump-instr=no', '--dump-line=no'];
    const res = spawnSync('valgrind', [...vg, process.execPath, ...node, script, '--work'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    if (res.status !== 0) throw new Error(`callgrind failed (${res.status}): ${res.stderr.slice(-2000)}`);
    const totals = readdirSync(dir)
      .map((f) => /^cg\.(\d+)$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ n: Number(m[1]), ir: Number(/^totals: (\d+)/m.exec(readFileSync(join(dir, m[0]), 'utf8'))?.[1] ?? NaN) }))
      .sort((a, b) => a.n - b.n)
      .map((d) => d.ir);
    // Dump 1: start-up and set-up; 2: the warm-up; then a dump a phase of each measured read.
    if (totals.length < 2 + STEPS * PHASES.length) throw new Error(`callgrind wrote ${totals.length} dumps`);
    const sum = (phase: number): number => totals.slice(2).reduce((s, ir, i) => (i % PHASES.length === phase ? s + ir : s), 0);
    const tokens = STEPS * AGENTS * LINES * PER_LINE;
    const per = (ir: number, n = tokens): string => (ir / n).toFixed(0);
    const [text, flush, frame] = [sum(1), sum(2), sum(3)];
    return [per(text), per(flush), per(frame), per(text + flush + frame), per(totals[1]!, WARM_STEPS * AGENTS * LINES * PER_LINE), (totals[0]! / 1e6).toFixed(0)].join(' | ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The work counted, in the child under callgrind. */
async function work(): Promise<void> {
  const { rig } = await import('./instructions-rig.js');
  const r = await rig();
  const mark = (): unknown => process.cpuUsage();
  let n = 0;
  /** A read's chunk from each agent: `LINES` JSON lines of `PER_LINE` tokens, and the usage each second. */
  const chunks = (step: number): string[] =>
    r.ids.map(() => {
      let chunk = '';
      for (let l = 0; l < LINES; l++) {
        let text = '';
        for (let i = 0; i < PER_LINE; i++, n++) text += `${WORDS[n % WORDS.length]}${n % 7 === 6 ? '.\n' : ' '}`;
        chunk += `${JSON.stringify({ type: 'text', text })}\n`;
      }
      return step % 10 === 9 ? `${chunk}${JSON.stringify({ type: 'usage', tokens: (step + 1) * 50 })}\n` : chunk;
    });
  mark();
  for (let step = 0; step < WARM_STEPS; step++) {
    const made = chunks(step);
    r.read(made);
    r.flush(step);
    await r.frame();
  }
  (globalThis as { gc?: () => void }).gc?.(); // the measured reads start from one heap, whatever the warm-up left
  for (let step = WARM_STEPS; step < WARM_STEPS + STEPS; step++) {
    mark();
    const made = chunks(step);
    mark();
    r.read(made);
    mark();
    r.flush(step);
    mark();
    await r.frame();
  }
  mark();
  r.stop();
}

if (process.argv.includes('--work')) await work();
