import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { LaneWatch } from '../../../src/io/lanes/lane-watch.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { xtermScreens, type XtermScreen } from '../../../src/io/terminal/screen.js';
import { LaneStore } from '../../../src/io/lanes/lane-store.js';
import { dropLane } from '../../../src/io/lanes/lane-end.js';
import { tempRepo, type TempRepo } from '../../helpers/git-repo.js';
import { until } from '../../helpers/until.js';

let repo: TempRepo;
let service: LocalAgentService | undefined;
afterEach(() => {
  service?.dispose();
  service = undefined;
  repo?.cleanup();
});

describe('two live lanes changing one file', () => {
  it('are warned on both panels, naming the other lane and the file, within a second of the second change', async () => {
    repo = tempRepo();
    const board = createBoard({ createScreen: xtermScreens, cols: 200, rows: 48 });
    const lanes = new LaneWatch({ db: repo.db, board, run: 'test-run' });
    service = new LocalAgentService({ board, records: new RecordStore(repo.db), agents: new AgentsStore(repo.db), run: 'test-run', lanes });
    const notes: { id: number; text: string; at: number }[] = [];
    board.getState().listen((id, event) => {
      // The wall clock when the warning reached the board.
      if (event.type === 'note' && event.text.startsWith('⚠')) notes.push({ id, text: event.text, at: Date.now() });
    });
    const spawn = (name: string) => service!.spawn({ cmd: 'spawn', kind: 'command', argv: ['sleep', '60'], label: name, cwd: repo.dir, lane: name }, Date.now());
    const a = await spawn('first');
    const b = await spawn('second');
    const header = (id: number): string => board.getState().panels.find((p) => p.id === id)?.header ?? '';

    writeFileSync(join(a.cwd ?? '', 'src/a.txt'), 'one\nTWO (first)\nthree\n');
    writeFileSync(join(a.cwd ?? '', 'README.md'), 'hello from first\n');
    await until(() => lanes.collide.filesOf(a.id)?.includes('src/a.txt') === true && lanes.collide.filesOf(b.id) !== undefined, { what: 'the first lane looked at' });
    expect(notes).toEqual([]);

    const secondChange = Date.now();
    writeFileSync(join(b.cwd ?? '', 'src/a.txt'), 'one\nTWO (second)\nthree\n');
    await until(() => notes.length >= 2, { what: 'a warning on both panels', explain: () => JSON.stringify({ notes, a: header(a.id), b: header(b.id) }) });

    expect(notes.map((n) => [n.id, n.text]).sort()).toEqual(
      [
        [a.id, '⚠ also changed by lane second: src/a.txt (same lines)'],
        [b.id, '⚠ also changed by lane first: src/a.txt (same lines)'],
      ].sort(),
    );
    for (const n of notes) {
      expect(n.at).toBeGreaterThanOrEqual(secondChange);
      expect(n.at - secondChange, `warned ${n.at - secondChange} ms after the second change`).toBeLessThan(1_000);
    }
    expect(header(a.id)).toContain('⎇ first');
    expect(header(a.id)).toContain('⚠ second: src/a.txt (same lines)');
    expect(header(b.id)).toContain('⚠ first: src/a.txt (same lines)');
  });
});

describe('a lane panel reopened from the agent list', () => {
  it('offers tai lane undrop, not tai lane merge, once its lane was dropped', async () => {
    repo = tempRepo();
    const board = createBoard({ createScreen: xtermScreens, cols: 200, rows: 48 });
    const lanes = new LaneWatch({ db: repo.db, board, run: 'test-run' });
    service = new LocalAgentService({ board, records: new RecordStore(repo.db), agents: new AgentsStore(repo.db), run: 'test-run', lanes });
    const started = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh', '-c', 'echo new > n.txt'], label: 'gone', cwd: repo.dir, lane: 'gone' }, Date.now());
    expect((await service.poll(started.id, 10_000))?.state).toBe('done');
    const s = () => board.getState();
    expect(await screenText(board, started.id)).toContain('merge: tai lane merge gone');
    expect(s().close(started.id, Date.now())).toBe(true);
    await dropLane(repo.db, new LaneStore(repo.db).get(new LaneStore(repo.db).list()[0]?.repo ?? '', 'gone')!, true);
    expect(s().reveal(started.id, Date.now())).toBe(true);
    expect(s().panels.find((p) => p.id === started.id)?.header).toContain('⎇ gone · dropped');
    const text = (await screenText(board, started.id)).replace(/\s+/g, ' ');
    expect(text).toContain('the lane gone was dropped: tai lane undrop gone brings it back');
  });
});

async function screenText(board: ReturnType<typeof createBoard>, id: number): Promise<string> {
  while (board.getState().flush(Date.now() + 1_000_000));
  const screen = board.getState().screenOf(id) as XtermScreen | undefined;
  if (!screen) return '';
  await screen.parsed();
  return screen.text().join('\n');
}
