import { describe, expect, it } from 'vitest';
import { shQuote, UnquotableWordError } from '../../../src/core/remote/sh-quote.js';
import { BadHostError, checkHost } from '../../../src/core/remote/host-name.js';

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
