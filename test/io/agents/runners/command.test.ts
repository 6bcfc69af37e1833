import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../../src/core/events.js';
import { runCommand, STDERR_MARK } from '../../../../src/io/agents/runners/command.js';

/** A child that writes `lines` short numbered lines to stderr, `perWrite` lines in each write, one write every `gapMs`. */
function stderrChatter(lines: number, perWrite: number, gapMs: number): string[] {
  const script =
    `let i = 0; const t = setInterval(() => { let s = ''; for (let k = 0; k < ${perWrite} && i < ${lines}; k++) s += 'e' + (i++) + '\\n';` +
    ` process.stderr.write(s); if (i >= ${lines}) clearInterval(t); }, ${gapMs});`;
  return [process.execPath, '-e', script];
}

describe('the command runner', () => {
  it('reads a child chattering on stderr at the pacer, in far fewer pieces than it wrote, every line in order', async () => {
    const writes = 200;
    const events: AgentEvent[] = [];
    const agent = runCommand({ argv: stderrChatter(writes * 5, 5, 2) }, (event) => events.push(event));
    expect((await agent.ended).state).toBe('done');
    const pieces = events.flatMap((e) => (e.type === 'text' ? [e.text] : []));
    const expected = Array.from({ length: writes * 5 }, (_, i) => `${STDERR_MARK}e${i}\n`).join('');
    expect(pieces.join('')).toBe(expected);
    // 200 writes over ~400 ms: read as they come that is ~200 pieces; paced, about one per 100 ms tick.
    expect(pieces.length).toBeLessThan(writes / 5);
  });

  it('keeps the last stderr lines of a flood as the evidence of a failure', async () => {
    const script = `for (let i = 0; i < 5000; i++) require('fs').writeSync(2, 'short ' + i + '\\n'); process.exit(3);`;
    let chars = 0;
    const agent = runCommand({ argv: [process.execPath, '-e', script] }, (e) => void (e.type === 'text' && (chars += e.text.length)));
    const outcome = await agent.ended;
    expect(outcome.state).toBe('failed');
    expect(outcome.failure?.[0]).toMatchObject({ exitCode: 3 });
    const evidence = (outcome.failure?.[0] as { stderr: string }).stderr.split('\n');
    expect(evidence).toHaveLength(20);
    expect(evidence.at(-1)).toBe('short 4999');
    expect(evidence[0]).toBe('short 4980');
    expect(chars).toBeGreaterThan(5000 * STDERR_MARK.length);
  });
});
