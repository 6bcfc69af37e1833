/**
 * A dev server's own terminal UI with tai's agent column beside its log
 * (docs/embedding.md). Run it from a checkout:
 *
 *   npx tsc -p . && node dist/docs/examples/dev-dashboard.js
 *
 * Two in-process workers start at once: one "builds", one "tests". Press `c`
 * to cancel the tests, `q` to quit. A real host imports from 'tai' instead
 * of '../../src/index.js'.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import React from 'react';
import { Box, render, Text, useInput } from 'ink';
import { AgentColumnBox, createDashboard, startAgentService, type Dashboard, type LocalAgentService, type WorkerFn } from '../../src/index.js';

/** Resolves after `ms`, or rejects at once when `signal` aborts (a worker's "next step"). */
function step(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('stopped'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('stopped'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A worker that "builds" in a few steps and returns a summary. */
export const buildWorker = (stepMs: number): WorkerFn => async (signal, emit) => {
  for (const file of ['src/server.ts', 'src/routes.ts', 'src/views.tsx']) {
    emit({ type: 'tool_start', name: 'compile', args: file });
    await step(stepMs, signal);
    emit({ type: 'tool_end', name: 'compile', result: 'ok', failed: false });
  }
  emit({ type: 'text', text: 'build finished: 3 files compiled\n' });
  return 'build ok';
};

/** A worker that "runs tests" until it has run `count` of them or is cancelled. */
export const testWorker = (stepMs: number, count: number): WorkerFn => async (signal, emit) => {
  for (let i = 1; i <= count; i++) {
    await step(stepMs, signal);
    emit({ type: 'text', text: `test ${i} passed\n` });
  }
  return `${count} tests passed`;
};

/** Props of the host app: its own log lines, the dashboard, and its window size. */
export interface DevServerAppProps {
  readonly dashboard: Dashboard;
  readonly log: readonly string[];
  readonly cols: number;
  readonly rows: number;
  /** Called on `c` (cancel the tests) and `q` (quit). */
  readonly onKey?: (key: string) => void;
}

/** The host's layout: its log on the left, tai's agent column in a Box of its own on the right. */
export function DevServerApp({ dashboard, log, cols, rows, onKey }: DevServerAppProps): React.JSX.Element {
  useInput((input) => onKey?.(input), { isActive: onKey !== undefined });
  const left = Math.floor(cols / 2);
  return (
    <Box width={cols} height={rows} flexDirection="row">
      <Box width={left} height={rows} flexDirection="column" borderStyle="single" borderTop={false} borderBottom={false} borderLeft={false}>
        <Text bold>dev server · http://localhost:5173</Text>
        {log.slice(-(rows - 1)).map((line, i) => (
          <Text key={i}>{line}</Text>
        ))}
      </Box>
      <Box width={cols - left} height={rows}>
        <AgentColumnBox board={dashboard.board} source={dashboard.source} />
      </Box>
    </Box>
  );
}

/** The example's agents: the dashboard, the service, and the two workers' panel ids. */
export interface Example {
  readonly dashboard: Dashboard;
  /** Starts more agents; polls results (`service.poll(id)`). */
  readonly service: LocalAgentService;
  readonly build: number;
  readonly tests: number;
  /** Cancels the tests worker as a user would. */
  cancelTests(): void;
  /** Stops every agent, the clock and the database. */
  stop(): void;
}

/** Starts a dashboard and two workers on it; `dbPath` is where long results go. */
export function startExample(options: { dbPath: string; stepMs?: number; tests?: number }): Example {
  const dashboard = createDashboard();
  const agents = startAgentService(dashboard.board, { dbPath: options.dbPath });
  const stepMs = options.stepMs ?? 400;
  const now = Date.now();
  const build = agents.service.spawnWorker({ label: 'build', task: 'compile the server' }, buildWorker(stepMs), now).id;
  const tests = agents.service.spawnWorker({ label: 'tests', task: 'run the test suite' }, testWorker(stepMs, options.tests ?? 1000), now).id;
  return {
    dashboard,
    service: agents.service,
    build,
    tests,
    cancelTests: () => void dashboard.board.getState().cancel(tests, 'cancelled from the dev server', Date.now(), 'user'),
    stop() {
      dashboard.board.getState().shutdown('the dev server stopped', Date.now());
      agents.close();
      dashboard.stop();
    },
  };
}

/** Runs the example full-screen until `q`. */
function main(): void {
  const example = startExample({ dbPath: join(mkdtempSync(join(tmpdir(), 'tai-example-')), 'tai.db') });
  const log = ['ready in 312 ms', 'GET / 200 4 ms', 'GET /api/items 200 11 ms'];
  const cols = process.stdout.columns || 100;
  // One row short of the terminal: a frame as tall as the terminal makes Ink clear the screen on every frame.
  const rows = (process.stdout.rows || 30) - 1;
  const app = render(
    <DevServerApp
      dashboard={example.dashboard}
      log={log}
      cols={cols}
      rows={rows}
      onKey={(key) => {
        if (key === 'c') example.cancelTests();
        if (key === 'q') {
          example.stop();
          app.unmount();
        }
      }}
    />,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
