/**
 * The public API from a consumer's point of view: this file imports only the
 * entry point, so `tsc` checks that everything a host needs is exported and
 * typed; the tests run the headless path and the worker contract.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  AgentColumnBox,
  AgentPanelBox,
  AgentsFullError,
  createBoard,
  createDashboard,
  DEFAULT_RUNNERS,
  isLive,
  LocalAgentService,
  runCockpit,
  startAgentService,
  startBoardClock,
  startCockpit,
  tapEvents,
  workerRunner,
  type AgentEvent,
  type AgentResult,
  type Board,
  type BoardState,
  type BoardStatus,
  type CockpitOptions,
  type Command,
  type PanelState,
  type PanelView,
  type Runner,
  type RunningCockpit,
  type SpawnResult,
  type WorkerFn,
} from '../../src/index.js';
import * as api from '../../src/index.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the public API', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'AgentColumnBox',
        'AgentPanelBox',
        'AgentsFullError',
        'DEFAULT_RUNNERS',
        'LocalAgentService',
        'PANEL_STATES',
        'RequestError',
        'createBoard',
        'createCockpitBoard',
        'createDashboard',
        'isLive',
        'runCockpit',
        'startAgentService',
        'startBoardClock',
        'startCockpit',
        'tapEvents',
        'workerRunner',
      ].sort(),
    );
  });

  it('types the board, the worker and the cockpit as a host uses them', () => {
    expectTypeOf(createBoard).returns.toMatchTypeOf<Board>();
    expectTypeOf<BoardState['status']>().returns.toEqualTypeOf<BoardStatus>();
    expectTypeOf<PanelView['state']>().toEqualTypeOf<PanelState>();
    expectTypeOf<WorkerFn>().parameters.toEqualTypeOf<Parameters<WorkerFn>>();
    expectTypeOf<Parameters<WorkerFn>[0]>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<Parameters<Parameters<WorkerFn>[1]>[0]>().toEqualTypeOf<AgentEvent>();
    expectTypeOf(workerRunner).returns.toEqualTypeOf<Runner>();
    expectTypeOf(DEFAULT_RUNNERS.acp).toEqualTypeOf<Runner>();
    expectTypeOf<LocalAgentService['spawnWorker']>().returns.toEqualTypeOf<SpawnResult>();
    expectTypeOf<LocalAgentService['poll']>().returns.resolves.toEqualTypeOf<AgentResult | undefined>();
    expectTypeOf(startCockpit).parameter(0).toEqualTypeOf<CockpitOptions>();
    expectTypeOf(startCockpit).returns.toEqualTypeOf<RunningCockpit>();
    expectTypeOf(runCockpit).returns.resolves.toEqualTypeOf<number>();
    const spawn: Command = { cmd: 'spawn', kind: 'command', argv: ['true'] };
    expect(spawn.cmd).toBe('spawn');
    expect(typeof AgentColumnBox).toBe('function');
    expect(typeof AgentPanelBox).toBe('function');
  });

  it('runs a worker headless: events through tapEvents, states through subscribe and status', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tai-api-'));
    const board = createBoard();
    const clock = startBoardClock(board);
    const { service, close } = startAgentService(board, { dbPath: join(dir, 'tai.db') });
    const seen: string[] = [];
    const states = new Set<PanelState>();
    const untap = tapEvents(board, (id, event) => seen.push(`#${id} ${event.type}`));
    const unsubscribe = board.subscribe((s) => {
      for (const row of s.status(Date.now()).agents) states.add(row.state);
    });
    try {
      const worker: WorkerFn = async (_signal, emit) => {
        emit({ type: 'text', text: 'hello ' });
        emit({ type: 'usage', tokens: 12 });
        return 'hello world';
      };
      const { id, shown, reason } = service.spawnWorker({ label: 'greeter', task: 'greet' }, worker, Date.now());
      expect(shown).toBe(false);
      expect(reason).toBe('panels are not drawn (no display)');
      const result = await service.poll(id, 5_000);
      expect(result).toMatchObject({ id, state: 'done', finished: true, text: 'hello world', exitCode: 0 });
      expect(seen).toEqual([`#${id} text`, `#${id} usage`]);
      expect(states.has('done')).toBe(true);
      expect(isLive('done')).toBe(false);
      expect(board.getState().status(Date.now()).agents.find((r) => r.id === id)).toMatchObject({ label: 'greeter', state: 'done', tokens: 12 });
    } finally {
      untap();
      unsubscribe();
      close();
      clock.stop();
    }
  });

  it('refuses the ninth live worker with AgentsFullError', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tai-api-'));
    const board = createBoard();
    const { service, close } = startAgentService(board, { dbPath: join(dir, 'tai.db') });
    const forever: WorkerFn = (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
    try {
      for (let i = 0; i < 8; i++) service.spawnWorker({ label: `w${i}` }, forever, Date.now());
      expect(() => service.spawnWorker({ label: 'ninth' }, forever, Date.now())).toThrow(AgentsFullError);
    } finally {
      board.getState().shutdown('test over', Date.now());
      close();
    }
  });

  it('builds a dashboard whose column fits a host box', () => {
    const dash = createDashboard({ cols: 40, rows: 20 });
    try {
      dash.board.getState().open({ label: 'a' }, Date.now());
      expect(dash.board.getState().panels[0]).toMatchObject({ cols: 40, rows: 19, shown: true });
      dash.fitColumn(30, 12);
      expect(dash.board.getState().panels[0]).toMatchObject({ cols: 30, rows: 11 });
    } finally {
      dash.stop();
    }
  });
});
