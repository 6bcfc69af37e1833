import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shCommand, shQuote, UnquotableWordError } from '../../../src/core/remote/sh-quote.js';
import { BadHostError, checkHost } from '../../../src/core/remote/host-name.js';
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

describe('quoting words for a POSIX shell on the host', () => {
  it.each([
    ['plain', 'plain'],
    ['/usr/bin/env', '/usr/bin/env'],
    ['a=b,c:d@e%f+g', 'a=b,c:d@e%f+g'],
    ['', "''"],
    ['two words', "'two words'"],
    ["it's", "'it'\\''s'"],
    ['$(x)', "'$(x)'"],
    ['a\nb', "'a\nb'"],
    ['*', "'*'"],
    ['~', "'~'"],
  ])('quotes %j as %j', (word, quoted) => {
    expect(shQuote(word)).toBe(quoted);
  });

  it('refuses a word with a NUL byte, which no command line can carry', () => {
    expect(() => shQuote('a\0b')).toThrow(UnquotableWordError);
    expect(() => shQuote('a\0b')).toThrow(/NUL byte/);
  });

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

describe('checking a host before ssh is given it', () => {
  it.each(['build', 'user@build.example.com', 'ssh://me@10.0.0.2:2222', '[::1]', 'gpu_box-2', 'me@fe80::1%eth0'])('accepts %j', (host) => {
    expect(checkHost(host)).toBe(host);
  });

  it.each([
    ['-oProxyCommand=touch /tmp/x', /starts with '-'/],
    ['-p', /starts with '-'/],
    ['', /is empty/],
    ['build box', /whitespace/],
    ['build\n', /whitespace/],
    ['a;b', /holds ";"/],
    ['$(id)', /holds "\$"/],
    ['a`b`', /holds "`"/],
    ['a|b', /holds "\|"/],
    ["a'b", /holds "'"/],
    ['a&b', /holds "&"/],
    ['a>b', /holds ">"/],
    ['x'.repeat(400), /longer than/],
  ])('refuses %j with a message that says what to give', (host, why) => {
    expect(() => checkHost(host)).toThrow(BadHostError);
    expect(() => checkHost(host)).toThrow(why);
    expect(() => checkHost(host)).toThrow(/give a name of your ssh config, user@host or ssh:\/\/user@host:port/);
  });
});
