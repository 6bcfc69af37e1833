/**
 * The notifier: one ring (the output stage's bell and OSC 9) and one hook
 * run per question, and per agent's end while another pane is zoomed;
 * TAI_NOTIFY=0 turns it off. A real board, a real hook through /bin/sh.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { ORCH_LINGER } from '../../../src/core/policy.js';
import type { QuestionAsk } from '../../../src/core/agents/questions.js';
import { startNotifier, type Notification } from '../../../src/io/cockpit/notifier.js';
import { TermOutput } from '../../../src/io/terminal/term-output.js';
import { createBoard } from '../../../store/board.js';
import { until } from '../../helpers/until.js';

const ASK: QuestionAsk = { tool: 'Edit a.txt', toolKind: 'edit', detail: [], options: [{ id: 'ok', name: 'Allow', kind: 'allow_once' }, { id: 'no', name: 'Reject', kind: 'reject_once' }] };
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function rig(env: NodeJS.ProcessEnv = {}) {
  const board = createBoard();
  const rings: string[] = [];
  const sent: Notification[] = [];
  const stop = startNotifier({ board, ring: (m) => rings.push(m), env, sent: (n) => sent.push(n) });
  return { board, rings, sent, stop };
}

describe('the notifier', () => {
  it('rings once when an agent starts waiting for you, and runs the hook with the question', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tai-notify-'));
    const file = join(dir, 'hook.out');
    const r = rig({ PATH: process.env['PATH'], TAI_NOTIFY_HOOK: `printf '%s|%s|%s|%s|%s' "$1" "$2" "$TAI_NOTIFY_QID" "$TAI_NOTIFY_QUESTION" "$TAI_NOTIFY_PANEL" > '${file}'` });
    const id = r.board.getState().open({ label: 'editor' }, 0);
    const qid = r.board.getState().ask(id, ASK, 0, () => {});
    r.board.getState().tick(1_000);
    r.board.getState().tick(2_000);
    expect(r.rings).toEqual(['tai: editor is waiting for you: Edit a.txt (edit): 1 Allow, 2 Reject']);
    await until(() => existsSync(file) && readFileSync(file, 'utf8') !== '');
    expect(readFileSync(file, 'utf8')).toBe(`asking|editor|${qid}|Edit a.txt (edit): 1 Allow, 2 Reject|${id}`);
    // A second question of the same agent, queued, rings only once it opens.
    r.board.getState().ask(id, ASK, 3_000, () => {});
    expect(r.rings).toHaveLength(1);
    r.board.getState().answer(qid ?? '', 'y', 'key', 4_000);
    expect(r.rings).toHaveLength(2);
    r.stop();
  });

  it('hands the event, the agent and the message to a hook that is a plain path to a script, as $1 $2 $3', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tai-notify-'));
    const file = join(dir, 'hook.out');
    const script = join(dir, 'hook.sh');
    writeFileSync(script, `#!/bin/sh\nprintf '%s|%s|%s' "$1" "$2" "$3" > '${file}'\n`);
    chmodSync(script, 0o700);
    const r = rig({ PATH: process.env['PATH'], TAI_NOTIFY_HOOK: script });
    const id = r.board.getState().open({ label: 'editor' }, 0);
    r.board.getState().ask(id, ASK, 0, () => {});
    r.board.getState().tick(1_000);
    await until(() => existsSync(file) && readFileSync(file, 'utf8') !== '');
    expect(readFileSync(file, 'utf8')).toBe('asking|editor|editor is waiting for you: Edit a.txt (edit): 1 Allow, 2 Reject');
    r.stop();
  });

  it('rings when an agent finishes while another pane is zoomed, not while you look at it', () => {
    const r = rig();
    const a = r.board.getState().open({ label: 'a' }, 0);
    const b = r.board.getState().open({ label: 'b' }, 0);
    r.board.getState().finish(a, 'done', 'exit 0', 1_000);
    expect(r.sent).toEqual([]);
    r.board.getState().zoomToggle(); // the main pane has focus: zoomed on it
    r.board.getState().finish(b, 'failed', 'exit 1', 2_000);
    r.board.getState().tick(3_000);
    expect(r.sent).toEqual([{ event: 'failed', agent: 'b', panel: b, message: 'b failed' }]);
    expect(r.rings).toEqual(['tai: b failed']);
    r.stop();
  });

  it('is off with TAI_NOTIFY=0', () => {
    const r = rig({ TAI_NOTIFY: '0' });
    const id = r.board.getState().open({ label: 'quiet' }, 0);
    r.board.getState().ask(id, ASK, 0, () => {});
    expect(r.rings).toEqual([]);
  });
});

describe('the output stage rings', () => {
  it('writes the bell and OSC 9 with the message made one line without controls', () => {
    const written: string[] = [];
    const out = new TermOutput((d) => written.push(d), 80, 24);
    out.ring('agent\x1b]0;evil\x07 waits\nnow');
    expect(written).toEqual(['\x07\x1b]9;agent ]0;evil  waits now\x07']);
  });
});

describe("the notifier's memory", () => {
  it('forgets the agents whose panels left: 40,000 agents that ended leave less than 1 MB behind (each 50 bytes before)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const r = rig();
    const s = r.board.getState;
    let now = 0;
    const agents = (count: number): void => {
      for (let n = 0; n < count; n++) {
        const id = s().open({ label: 'quick' }, now);
        s().finish(id, 'done', 'ok', (now += 10));
        s().tick((now += ORCH_LINGER + 1));
      }
    };
    // The first ones fill what the board keeps of ended agents (its history, bounded).
    agents(200);
    gc();
    const before = process.memoryUsage().heapUsed;
    agents(40_000);
    gc();
    expect(s().panels).toEqual([]);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1 << 20);
    r.stop();
  });
});
