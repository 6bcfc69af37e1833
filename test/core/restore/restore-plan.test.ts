import { describe, expect, it } from 'vitest';
import { encodeLaunch, LAUNCH_VERSION, parseLaunch, type Launch } from '../../../src/core/restore/launch.js';
import { continueArgv, endsWithCockpit, restoreStep, spentMs } from '../../../src/core/restore/restore-plan.js';

const launch: Launch = { v: LAUNCH_VERSION, kind: 'claude', argv: ['claude', '-p'], cwd: '/w', label: 'fixer', task: 'fix it', limitMs: 1_800_000, spentMs: 0, retriesLeft: 1, sessionId: 's-1', env: { TOKEN: 'secret value' } };

describe('a restore plan', () => {
  it('reads back a stored launch byte for byte, and names what is wrong with one that is not a launch', () => {
    expect(parseLaunch(encodeLaunch(launch))).toEqual(launch);
    expect(parseLaunch('{not json')).toEqual({ problem: 'its stored launch is not JSON' });
    expect(parseLaunch(JSON.stringify({ ...launch, v: 2 }))).toEqual({ problem: 'its stored launch has version 2, and this tai reads version 1 (a newer tai wrote it?)' });
    expect(parseLaunch(JSON.stringify({ ...launch, argv: 'claude' }))).toEqual({ problem: 'its stored launch has a bad argv' });
    expect(parseLaunch(JSON.stringify({ ...launch, permissions: 'maybe' }))).toEqual({ problem: 'its stored launch has a bad permissions' });
  });

  it('carries the wall clock on: 30 minutes that had run 20 have 10 left', () => {
    const spent = spentMs(launch, 1_000_000, 1_000_000 + 20 * 60_000);
    expect(restoreStep(launch, spent, 'same', 'same')).toEqual({ action: 'resume', remainingMs: 10 * 60_000, notes: [] });
    expect(spentMs({ ...launch, spentMs: 5_000 }, 2_000, 1_000)).toBe(5_000);
    expect(restoreStep(launch, 30 * 60_000, 'same', 'same')).toMatchObject({ action: 'ended', why: 'its wall clock of 1800 s had run out' });
  });

  it('resumes only a kind that can with a session id, and says a folder or program gone or changed instead of guessing', () => {
    expect(restoreStep({ ...launch, kind: 'command' }, 0, 'same', 'same')).toMatchObject({ action: 'ended', why: 'a command agent cannot resume a session' });
    const { sessionId: _gone, ...noSession } = launch;
    expect(restoreStep(noSession, 0, 'same', 'same')).toMatchObject({ action: 'ended', why: 'it had not reported a session id to resume' });
    expect(restoreStep(launch, 0, 'same', 'gone')).toMatchObject({ action: 'ended', why: 'its folder /w no longer exists, so it was not started again' });
    expect(restoreStep(launch, 0, 'same', 'changed')).toMatchObject({ action: 'ended', why: expect.stringContaining('its folder /w is not the one it started in') });
    expect(restoreStep(launch, 0, 'gone', 'same')).toMatchObject({ action: 'ended', why: 'its program claude no longer exists, so it was not started again' });
    expect(restoreStep(launch, 0, 'changed', 'same')).toMatchObject({ action: 'resume', notes: [expect.stringContaining('its program claude changed since it started')] });
  });

  it('continues an agent CLI as the main program with its own flag, and leaves any other program as it was', () => {
    expect(continueArgv(['/usr/bin/claude'])).toEqual(['/usr/bin/claude', '--continue']);
    expect(continueArgv(['claude', '--continue'])).toEqual(['claude', '--continue']);
    expect(continueArgv(['codex'])).toEqual(['codex', 'resume', '--last']);
    expect(continueArgv(['/bin/bash', '-l'])).toEqual(['/bin/bash', '-l']);
  });

  it('keeps an agent stopped by its cockpit\'s end restorable, and no other', () => {
    expect(endsWithCockpit('the cockpit is exiting (exit 143)')).toBe(true);
    expect(endsWithCockpit('tai crashed')).toBe(true);
    expect(endsWithCockpit('cancelled by request (tai cancel)')).toBe(false);
  });
});
