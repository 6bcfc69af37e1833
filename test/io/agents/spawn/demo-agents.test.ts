import { describe, expect, it, vi } from 'vitest';
import { parseDemoArgs, startDemoAgent } from '../../../../src/io/agents/spawn/demo-agents.js';
import { createBoard } from '../../../../store/board.js';

describe('the demo agents', () => {
  it('parses the agents, the rate and the main command', () => {
    expect(parseDemoArgs(['--agents', 'stream*2,fail', '--rate', '100', '--', 'python3'])).toEqual({
      specs: [
        { mode: 'stream', rate: 100 },
        { mode: 'stream', rate: 100 },
        { mode: 'fail', rate: 100 },
      ],
      rest: ['python3'],
    });
    expect(parseDemoArgs([]).specs.map((s) => s.mode)).toEqual(['stream', 'tools', 'silent', 'fail']);
    expect(() => parseDemoArgs(['--agents', 'nope'])).toThrow(/unknown agent 'nope'/);
  });

  it('drives a real child process into the board until it fails, counting its tool call', async () => {
    const board = createBoard();
    const { id } = startDemoAgent(board, { mode: 'fail', rate: 500 }, Date.now, 1);
    await vi.waitFor(() => expect(board.getState().status(Date.now()).agents[0]?.state).toBe('failed'), { timeout: 15_000 });
    const row = board.getState().status(Date.now()).agents.find((a) => a.id === id);
    expect(row?.tools).toBe(1);
    expect(row?.tokens).toBeGreaterThan(0);
    expect(row?.reason).toBe('giving up: the remote is unreachable');
  });

  it('stops an agent softly when its panel is cancelled', async () => {
    const board = createBoard();
    const { id, child } = startDemoAgent(board, { mode: 'silent', rate: 500 }, Date.now, 1);
    await vi.waitFor(() => expect(board.getState().status(Date.now()).agents[0]?.tokens).toBeGreaterThan(0), { timeout: 15_000 });
    board.getState().cancel(id, 'test', Date.now());
    await vi.waitFor(() => expect(board.getState().status(Date.now()).agents[0]?.state).toBe('cancelled'), { timeout: 15_000 });
    expect(child.exitCode).toBe(130);
  });
});
