/**
 * The example agents of `tai demo`: real child processes (src/demo-agent.ts) writing agent events as JSON lines,
 * driven into the board; SIGTERM the soft stop, SIGKILL the hard. No model or API key needed; only the demo's
 * tiny protocol.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentEvent } from '../../../core/events.js';
import type { Board } from '../../../../store/board.js';
import { pacedData, withPacedPipes } from '../paced-read.js';

/** The kinds of example agent the fixture knows. */
export type DemoMode = 'stream' | 'tools' | 'silent' | 'fail';

/** The demo's agents when none are named. */
export const DEFAULT_DEMO: readonly DemoMode[] = ['stream', 'tools', 'silent', 'fail'];

/** How to run one example agent. */
export interface DemoAgentSpec {
  readonly mode: DemoMode;
  /** Tokens per second of streamed text. */
  readonly rate?: number;
  /** Seconds of streaming (stream mode). */
  readonly seconds?: number;
}

const TASKS: Readonly<Record<DemoMode, string>> = {
  stream: 'explain the module layout in plain words',
  tools: 'fix the failing parser test',
  silent: 'wait for a reviewer (this one goes silent and turns idle after 60 s)',
  fail: 'push the branch (this one fails)',
};

/** The example agent's program: dist/src/demo-agent.js, beside this module once built (or from the source tree, once built). */
export function demoAgentPath(): string {
  for (const rel of ['../../../demo-agent.js', '../../../../dist/src/demo-agent.js']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  throw new Error('tai demo: the example agent dist/src/demo-agent.js is missing: run `npm run build` first');
}

/** True when a parsed line is an AgentEvent the board understands. */
export function isAgentEvent(v: unknown): v is AgentEvent {
  if (typeof v !== 'object' || v === null) return false;
  const t = (v as { type?: unknown }).type;
  return typeof t === 'string' && ['text', 'thought', 'tool_start', 'tool_end', 'plan', 'note', 'error', 'usage'].includes(t);
}

/** Starts one example agent on `board`; returns its panel id and its process. */
export function startDemoAgent(board: Board, spec: DemoAgentSpec, now: () => number, n: number): { id: number; child: ChildProcess } {
  const args = [demoAgentPath(), spec.mode];
  if (spec.rate !== undefined) args.push('--rate', String(spec.rate));
  if (spec.seconds !== undefined) args.push('--seconds', String(spec.seconds));
  const id = board.getState().open({ label: `demo ${spec.mode} #${n}`, task: TASKS[spec.mode] }, now());
  const child = withPacedPipes(() => spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] }));
  board.getState().setCancel(
    id,
    () => child.kill('SIGTERM'),
    () => child.kill('SIGKILL'),
  );
  let lastError = '';
  const onLine = (line: string): void => {
    const event = demoEventOf(line);
    if (event === undefined) return;
    if (event.type === 'error') lastError = event.text;
    board.getState().emit(id, event, now());
  };
  const lines = lineReader(onLine);
  child.stdout!.setEncoding('utf8');
  pacedData(child.stdout!, lines.chunk);
  child.stdout!.on('end', lines.end);
  child.on('close', (code, signal) => {
    const ok = code === 0;
    const summary = ok ? 'finished' : (lastError || `exited with ${signal ?? `code ${code}`}`);
    board.getState().finish(id, ok ? 'done' : 'failed', summary, now());
  });
  child.on('error', (err) => board.getState().finish(id, 'failed', err.message, now()));
  return { id, child };
}

/** The longest line kept; a longer one is cut there (the demo's agents write short lines). */
const LINE_MAX = 1 << 20;

/** A demo agent's line as the event it holds; a line that is not JSON is text; undefined for JSON that is no event. */
export function demoEventOf(line: string): AgentEvent | undefined {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    event = { type: 'text', text: `${line}\n` };
  }
  return isAgentEvent(event) ? event : undefined;
}

/**
 * Calls `onLine` for each line of the chunks given to `chunk` without its `\n` or `\r\n`, and for a last unended
 * one at `end`: what readline does here, at a fraction of its cost per line (docs/performance.md).
 */
export function lineReader(onLine: (line: string) => void): { chunk(chunk: string): void; end(): void } {
  let rest = '';
  const emit = (line: string): void => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  return {
    chunk(chunk) {
      let start = 0;
      let nl = chunk.indexOf('\n');
      if (nl < 0) {
        rest = (rest + chunk).slice(0, LINE_MAX);
        return;
      }
      emit(rest + chunk.slice(0, nl));
      start = nl + 1;
      while ((nl = chunk.indexOf('\n', start)) >= 0) {
        emit(chunk.slice(start, nl));
        start = nl + 1;
      }
      rest = chunk.slice(start, start + LINE_MAX);
    },
    end() {
      if (rest !== '') emit(rest);
      rest = '';
    },
  };
}

/** Parses `--agents stream,tools --rate N --seconds S` from the demo's arguments. */
export function parseDemoArgs(args: readonly string[]): { specs: DemoAgentSpec[]; rest: string[] } {
  let modes: DemoMode[] = [...DEFAULT_DEMO];
  let rate: number | undefined;
  let seconds: number | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i + 1));
      break;
    }
    if (a === '--agents') {
      modes = (args[++i] ?? '')
        .split(',')
        .filter((m) => m !== '')
        .flatMap((m) => {
          const [mode, times] = m.split('*');
          if (!isMode(mode)) throw new Error(`tai demo: unknown agent '${mode}' (stream, tools, silent, fail)`);
          return new Array<DemoMode>(Math.max(1, Number(times ?? 1) || 1)).fill(mode);
        });
    } else if (a === '--rate') rate = Number(args[++i]);
    else if (a === '--seconds') seconds = Number(args[++i]);
    else throw new Error(`tai demo: unknown option '${a}'`);
  }
  const specs = modes.map((mode) => ({
    mode,
    ...(rate === undefined ? {} : { rate }),
    ...(seconds === undefined ? {} : { seconds }),
  }));
  return { specs, rest };
}

function isMode(m: string | undefined): m is DemoMode {
  return m === 'stream' || m === 'tools' || m === 'silent' || m === 'fail';
}
