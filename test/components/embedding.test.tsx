import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Box, Text } from 'ink';
import { render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DevServerApp, startExample, type Example } from '../../docs/examples/dev-dashboard.js';
import { AgentPanelBox } from '../../src/index.js';

let example: Example | undefined;
let unmount: (() => void) | undefined;
let dir: string | undefined;
afterEach(() => {
  unmount?.();
  example?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  example = unmount = dir = undefined;
});

/** Mounts the example host app, 100 x 30, with two workers running. */
function mount(tests: number) {
  dir = mkdtempSync(join(tmpdir(), 'tai-embed-'));
  const ex = (example = startExample({ dbPath: join(dir, 'tai.db'), stepMs: 30, tests }));
  const app = render(<DevServerApp dashboard={ex.dashboard} log={['ready in 312 ms', 'GET / 200 4 ms']} cols={100} rows={30} />);
  unmount = app.unmount;
  const rows = (): string[] => stripAnsi(app.lastFrame() ?? '').split('\n');
  const state = (id: number) => ex.dashboard.board.getState().status(Date.now()).agents.find((a) => a.id === id)?.state;
  return { ex, rows, state };
}

describe('the dev dashboard example', () => {
  it("draws the agent column in the host's right half, beside the host's own log", async () => {
    const { ex, rows } = mount(1000);
    // The board's column is fitted to the host's Box, 50 x 30: two panels of 15 and 14 rows, headers included.
    await vi.waitFor(() => expect(ex.dashboard.board.getState().panels.map((p) => [p.cols, p.rows])).toEqual([[50, 14], [50, 13]]));
    await vi.waitFor(() => expect(rows()[15]?.slice(50)).toBe('─'.repeat(50)));
    const frame = rows();
    expect(frame).toHaveLength(30);
    expect(frame[0].slice(0, 49)).toBe('dev server · http://localhost:5173'.padEnd(49));
    expect(frame[1].slice(0, 49).trimEnd()).toBe('ready in 312 ms');
    expect(frame[0].slice(50)).toMatch(/^ ● build · running/);
    expect(frame[15].slice(50)).toBe('─'.repeat(50));
    expect(frame[16].slice(50)).toMatch(/^ ● tests · running/);
  });

  it('streams both workers into their panels, and the build finishes done', async () => {
    const { ex, rows, state } = mount(1000);
    await vi.waitFor(() => expect(rows().slice(1, 15).join('\n')).toContain('build finished: 3 files compiled'), { timeout: 10_000 });
    await vi.waitFor(() => expect(rows().slice(17).join('\n')).toContain('test 3 passed'), { timeout: 10_000 });
    await vi.waitFor(() => expect(state(ex.build)).toBe('done'), { timeout: 10_000 });
    expect(state(ex.tests)).toBe('running');
    await vi.waitFor(() => expect(rows()[0]).toMatch(/ build · done/));
  });

  it('cancels the tests worker: its panel turns cancelled with its partial result, the build is untouched', async () => {
    const { ex, rows, state } = mount(1000);
    await vi.waitFor(() => expect(rows().slice(17).join('\n')).toContain('test 2 passed'), { timeout: 10_000 });
    ex.cancelTests();
    await vi.waitFor(() => expect(state(ex.tests)).toBe('cancelled'), { timeout: 10_000 });
    await vi.waitFor(() => expect(rows()[16]).toMatch(/ tests · cancelled/), { timeout: 10_000 });
    const result = await ex.service.poll(ex.tests, 5_000);
    expect(result).toMatchObject({ state: 'cancelled', finished: true, exitCode: 130, reason: 'cancelled from the dev server' });
    expect(result?.text).toMatch(/^\[cancelled \(cancelled from the dev server\); partial result\]\ntest 1 passed\ntest 2 passed\n/);
    await vi.waitFor(() => expect(state(ex.build)).toBe('done'), { timeout: 10_000 });
  });

  it("draws one panel in a host's Box beside the host's own text", async () => {
    dir = mkdtempSync(join(tmpdir(), 'tai-embed-'));
    const ex = (example = startExample({ dbPath: join(dir, 'tai.db'), stepMs: 30, tests: 1000 }));
    ex.dashboard.fitColumn(40, 24);
    const app = render(
      <Box width={70} height={12}>
        <Box width={30}>
          <Text>host content</Text>
        </Box>
        <AgentPanelBox board={ex.dashboard.board} source={ex.dashboard.source} id={ex.tests} />
      </Box>,
    );
    unmount = app.unmount;
    const rows = (): string[] => stripAnsi(app.lastFrame() ?? '').split('\n');
    await vi.waitFor(() => expect(rows()[0]).toMatch(/^host content {18} ● tests · running/));
    await vi.waitFor(() => expect(rows().slice(1).some((r) => r.slice(30).startsWith('test 2 passed'))).toBe(true), { timeout: 10_000 });
    expect(rows()).toHaveLength(12); // the panel is 12 rows high, clipped to the host's box
  });
});
