import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyCap, TRANSCRIPT_HEAD_BYTES, TRANSCRIPT_MAX_BYTES } from '../../../src/core/agents/transcript-cap.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';

describe('the transcripts table', () => {
  it('holds at most 1 MiB of an agent: its head and its newest tail, with the bytes cut between them', () => {
    const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-transcripts-')), 'tai.db'));
    try {
      const store = new TranscriptStore(db);
      const cap = emptyCap();
      for (let i = 0; i < 2_000; i++) store.append('run-1', 3, cap, `${String(i).padStart(6, '0')}${'.'.repeat(993)}\n`, i === 1_999, i);
      const t = store.read('run-1', 3);
      if (!t) throw new Error('no transcript');
      const text = t.parts.map((p) => p.text).join('');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TRANSCRIPT_MAX_BYTES);
      expect(Buffer.byteLength(text) + t.cutBytes).toBe(2_000 * 1_000);
      expect(text.startsWith('000000')).toBe(true);
      expect(text.endsWith(`001999${'.'.repeat(993)}\n`)).toBe(true);
      expect(t.parts.filter((p) => p.head).reduce((n, p) => n + p.text.length, 0)).toBe(TRANSCRIPT_HEAD_BYTES);
      expect(t.ended).toBe(true);
      // A reader following from a seq gets only what came after it.
      const last = t.parts.at(-1)?.seq ?? 0;
      expect(store.read('run-1', 3, last)?.parts).toEqual([]);
      expect(store.read('run-1', 4)).toBeUndefined();
    } finally {
      db.close();
    }
  });
});
