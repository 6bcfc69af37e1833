import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { TRANSCRIPT_SLICE } from '../../../src/io/transcripts/agent-transcripts.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { sanitize, stripSgr } from '../../../src/core/text/sanitize.js';
import { xtermScreens } from '../../../src/io/terminal/screen.js';
import { until } from '../../helpers/until.js';

let close: (() => void) | undefined;
afterEach(() => close?.());

function service(): { service: LocalAgentService; transcripts: TranscriptStore } {
  const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-slices-')), 'tai.db'));
  const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
  const transcripts = new TranscriptStore(db);
  let t = 1_000_000;
  const s = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), transcripts, run: 'run-1', now: () => (t += 10) });
  close = () => {
    s.dispose();
    db.close();
  };
  return { service: s, transcripts };
}

/** A long text without spaces whose slices' edges fall inside a colour sequence, an OSC string and a surrogate pair. */
function longText(): string {
  const fill = (n: number): string => 'x'.repeat(n);
  return (
    fill(TRANSCRIPT_SLICE - 3) + '\x1b[31mred\x1b[0m' +
    fill(TRANSCRIPT_SLICE - 'red\x1b[0m'.length - 4) + '\x1b]0;title\x07' +
    fill(TRANSCRIPT_SLICE - 'title\x07'.length - 1 - 4) + '😀' +
    fill(3 * TRANSCRIPT_SLICE) + '\u202e' + 'end'
  );
}

describe('a long text in a transcript', () => {
  it('is sanitized and written a slice a turn after the answer, in order, the footer last, as one pass would have', async () => {
    const { service: s, transcripts } = service();
    const text = longText();
    const { id } = s.spawnWorker({ label: 'long' }, async (_signal, emit) => {
      emit({ type: 'text', text });
      emit({ type: 'tool_start', name: 'shell', args: 'ls' });
      return 'short';
    }, 1_000_000);
    const result = await s.poll(id, 10_000);
    expect(result?.state).toBe('done');
    // The answer did not wait for the transcript: its text is still going through.
    expect(transcripts.read('run-1', id)?.ended).toBe(false);
    await until(() => transcripts.read('run-1', id)?.ended === true);
    const stored = transcripts.read('run-1', id);
    const whole = stored?.parts.map((p) => p.text).join('') ?? '';
    expect(stored?.parts.length).toBeGreaterThan(3);
    const body = stripSgr(sanitize(text));
    expect(body).toContain('<U+202E>end');
    expect(whole).toContain(`${body}\n⏺ shell(ls)\n`);
    expect(whole.indexOf('⏺ shell(ls)')).toBeLessThan(whole.indexOf('✓ done'));
    expect(whole.trimEnd().split('\n').at(-1)).toMatch(/^✓ done/);
  });
});
