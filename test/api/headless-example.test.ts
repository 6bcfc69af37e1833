import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHeadless } from '../../docs/examples/headless.js';

describe('the headless example', () => {
  it('hears every event of both workers and sees both finish done', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-headless-'));
    try {
      const run = await runHeadless(join(dir, 'tai.db'));
      expect(run.events.map((e) => `#${e.id} ${e.event.type}`).sort()).toEqual(['#1 tool_end', '#1 tool_start', '#2 text']);
      expect(run.results.map((r) => [r?.state, r?.text])).toEqual([
        ['done', 'lint clean'],
        ['done', 'no type errors\n'],
      ]);
      expect(run.states).toContain('#1 done');
      expect(run.states).toContain('#2 done');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
