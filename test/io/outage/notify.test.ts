import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { giveUpMessage, notifyGiveUp } from '../../../src/io/outage/notify.js';
import { getOutage, readLog, recordProbe, reportFailure, type Outage } from '../../../src/io/outage/outage-store.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';

const T0 = Date.UTC(2026, 9, 9, 23, 0, 0);
let dir: string;
const opened: StateDb[] = [];

function connect(): StateDb {
  const db = openStateDb(join(dir, 'tai.db'));
  opened.push(db);
  return db;
}

/** An outage taken through its whole schedule to give-up. */
function gaveUp(db: StateDb): Outage {
  const { outage } = reportFailure(db, 'network', 'Network is unreachable', T0);
  let current = getOutage(db, outage.id);
  while (current?.nextProbeAt != null) current = recordProbe(db, 'network', false, current.nextProbeAt);
  if (current === undefined) throw new Error('the outage vanished');
  return current;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-notify-'));
});

afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the give-up notification', () => {
  it('says what was lost, for how long, and where to look', () => {
    expect(giveUpMessage(gaveUp(connect()))).toBe(
      'tai gave up waiting for the network after 9 h 16 min (12 probes); the run stopped. See `tai report`.',
    );
  });

  it('is sent exactly once however many processes ask, through the bell, OSC 9, notify-send and the hook', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const calls = join(dir, 'calls');
    writeFileSync(join(bin, 'notify-send'), `#!/bin/sh\necho "notify-send $*" >> ${calls}\n`);
    chmodSync(join(bin, 'notify-send'), 0o755);
    const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}`, TAI_NOTIFY_HOOK: `echo "hook $TAI_OUTAGE_SERVICE: $TAI_NOTIFY_MESSAGE" >> ${calls}` };
    const outage = gaveUp(connect());
    const written: string[] = [];
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => notifyGiveUp(connect(), outage, { now: T0 + i, pid: 900 + i, env, terminal: (b) => written.push(b) })),
    );
    expect(results.map((result) => result.sent)).toEqual([true, false, false, false, false]);
    const message = giveUpMessage(outage);
    expect(written).toEqual([`\x07\x1b]9;${message}\x07`]);
    expect(readFileSync(calls, 'utf8')).toBe(`notify-send --urgency=critical --app-name=tai tai: outage ${message}\nhook network: ${message}\n`);
    expect(results[0]?.channels).toEqual(['terminal: bell and OSC 9', 'notify-send: exit 0', 'hook: exit 0']);
    const db = connect();
    expect(readLog(db, { kind: 'notify' }).map((row) => row.pid)).toEqual([901]);
    expect(readLog(db, { kind: 'notify-sent' }).map((row) => row.detail)).toEqual([
      'terminal: bell and OSC 9; notify-send: exit 0; hook: exit 0',
    ]);
  });

  it.each([
    ['a plain path to a script', (script: string) => script],
    ['a command line', (script: string) => `${script} "$1" "$2" "$3"`],
  ])('hands the event, the service and the message to a hook that is %s, as its three arguments, as the cockpit does', async (_, hook) => {
    const db = connect();
    const outage = gaveUp(db);
    const out = join(dir, 'hook.out');
    const script = join(dir, 'hook.sh');
    writeFileSync(script, `#!/bin/sh\nprintf '%s|%s|%s|%s' "$1" "$2" "$3" "$TAI_NOTIFY_EVENT" > '${out}'\n`);
    chmodSync(script, 0o700);
    const result = await notifyGiveUp(db, outage, { now: T0, env: { PATH: dir, TAI_NOTIFY_HOOK: hook(script) } });
    expect(result.channels).toEqual(['hook: exit 0']);
    expect(readFileSync(out, 'utf8')).toBe(`outage|network|${giveUpMessage(outage)}|outage`);
  });

  it('finds notify-send only as an executable file in an absolute PATH folder', async () => {
    const db = connect();
    const outage = gaveUp(db);
    const bin = join(dir, 'bin');
    mkdirSync(join(bin, 'notify-send'), { recursive: true });
    const result = await notifyGiveUp(db, outage, { now: T0, env: { PATH: `${bin}:bin:.` } });
    expect(result).toEqual({ sent: true, channels: [] });
  });

  it('notifies nobody for an outage that ended before the schedule gave up', async () => {
    const db = connect();
    reportFailure(db, 'network', 'Network is unreachable', T0);
    const ended = recordProbe(db, 'network', true, T0 + 60_000);
    const calls = join(dir, 'calls');
    const result = await notifyGiveUp(db, ended as Outage, { now: T0, env: { PATH: '', TAI_NOTIFY_HOOK: `touch ${calls}` } });
    expect(result).toEqual({ sent: false, channels: [] });
    expect(existsSync(calls)).toBe(false);
    expect(readLog(db, { kind: ['notify', 'notify-sent'] })).toEqual([]);
  });
});
