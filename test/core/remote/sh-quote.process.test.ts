/** The quoting of src/core/remote/sh-quote.ts through a real sh (the rest of it is tested in process: sh-quote.test.ts). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shCommand } from '../../../src/core/remote/sh-quote.js';
import { remoteCommandLine } from '../../../src/core/remote/remote-reaper.js';
import { SessionDecoder } from '../../../src/core/remote/spool-frames.js';

/** Words a hostile or careless argv may hold: each must reach the program unchanged. */
const HOSTILE = [
  '',
  ' ',
  'two words',
  "it's",
  "'",
  "''",
  '"$HOME"',
  '$(touch /tmp/tai-quote-pwned)',
  '`touch /tmp/tai-quote-pwned`',
  '; touch /tmp/tai-quote-pwned',
  '&& rm -rf ~',
  '| cat',
  '*',
  '~',
  '-rf',
  '--',
  'a\nb',
  'tab\there',
  '\\',
  '\\\'',
  '!event',
  '#not a comment',
  '{a,b}',
  '[ab]',
  'é ü 中文 🙂',
  '\x1b[31mred',
  '%s %n',
];

describe('quoting words for a POSIX shell on the host, run by a real sh', () => {
  it('brings every hostile word back unchanged through a real sh, and runs nothing', () => {
    const line = `printf '%s\\0' ${shCommand(HOSTILE)}`;
    const run = spawnSync('sh', ['-c', line], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } });
    expect(run.status).toBe(0);
    expect(run.stdout.split('\0').slice(0, -1)).toEqual(HOSTILE);
  });

  it('builds a remote command line that a real sh runs with the argv unchanged', () => {
    const line = remoteCommandLine(['printf', '%s\\n', ...HOSTILE], { softGraceS: 1, lostGraceS: 1, beatLimitS: 5 });
    const run = spawnSync('sh', ['-c', line], { input: '', env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } });
    // Only the reaper's word that the job's folder exists (src/core/remote/remote-reaper.ts) is on stderr.
    expect(run.stderr.toString()).toBe('\u0001tai job\n');
    // The session frames the agent's output (src/core/remote/spool-frames.ts).
    const items = new SessionDecoder().push(run.stdout);
    const stdout = Buffer.concat(items.flatMap((item) => (item.kind === 'data' && item.stream === 'o' ? [item.bytes] : []))).toString('utf8');
    expect(stdout).toBe(HOSTILE.map((w) => `${w}\n`).join(''));
    expect(items.at(-1)).toEqual({ kind: 'exit', code: 0 });
    expect(run.status).toBe(0);
  });
});
