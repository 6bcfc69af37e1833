import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyCap, TRANSCRIPT_HEAD_BYTES, TRANSCRIPT_MAX_BYTES } from '../../../src/core/agents/transcript-cap.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';
import { RecordStore } from '../../../src/io/storage/records.js';
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

  it('keeps its pages full when parts are made references to a record: no mostly empty page per shrunk part', () => {
    const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-transcripts-')), 'tai.db'));
    try {
      const store = new TranscriptStore(db);
      const body = 'a line of an agent\'s answer, as it streamed. '.repeat(25).slice(0, 1_000);
      const recordId = new RecordStore(db).put(body.repeat(2), { label: 'answer' }, 1);
      db.pragma('synchronous = OFF'); // the fill only: hundreds of small commits
      // Four agents streaming at once, a part a second each, as a cockpit writes them; then each agent's parts read the record.
      const caps = [1, 2, 3, 4].map(() => emptyCap());
      for (let k = 0; k < 100; k++) for (let a = 0; a < 4; a++) store.append('1234-1733350000000', a + 1, caps[a]!, `${k}:${body}\n`, false, k);
      for (let a = 0; a < 4; a++) {
        const refs = Array.from({ length: 100 }, (_, k) => ({ seq: k + 1, at: `${k}:`.length, from: 0, len: 1_000 }));
        expect(store.reference('1234-1733350000000', a + 1, recordId, refs)).toBe(100);
        expect(store.read('1234-1733350000000', a + 1)?.parts.map((p) => p.text)).toEqual(Array.from({ length: 100 }, (_, k) => `${k}:${body}\n`));
      }
      const pages = (db.prepare("SELECT SUM(pgsize) AS n FROM dbstat WHERE name IN ('transcript_parts', 'sqlite_autoindex_transcript_parts_1')").get() as { n: number }).n;
      // Before: a part shrunk in place kept its page, about 1,300 bytes of pages for each 60-byte row.
      expect(pages / 400).toBeLessThan(400);
    } finally {
      db.close();
    }
  });
});
