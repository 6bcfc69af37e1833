/**
 * Which client attaches (TAI_NATIVE_CLIENT) and how the native client's
 * report reads as a farewell; the client itself runs in
 * test/native/client.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { nativeClientFor, NativeClientError, readReport } from '../../../src/io/link/native-client.js';

describe('the native client chosen', () => {
  const built = '/pkg/src/native/build/tai-client';

  it.each([
    [undefined, built, built],
    ['', built, built],
    [undefined, undefined, undefined],
    ['0', built, undefined],
    ['/elsewhere/tai-client', undefined, '/elsewhere/tai-client'],
  ])('TAI_NATIVE_CLIENT=%j with the built client at %j runs %j (undefined: the node client)', (setting, at, expected) => {
    expect(nativeClientFor(setting, at)).toBe(expected);
  });

  it('refuses a TAI_NATIVE_CLIENT that is neither 0 nor an absolute path', () => {
    expect(() => nativeClientFor('yes', built)).toThrow(new NativeClientError("TAI_NATIVE_CLIENT must be 0 or an absolute path, not 'yes'"));
  });
});

describe("the native client's report", () => {
  const who = { name: 'night', logPath: '/the/log' };

  it.each([
    ['frame d\n{"code":0,"message":"detached"}', { code: 0, message: 'detached' }],
    ['frame x\n{"code":4,"lines":["a",2]}', { code: 4, lines: ['a', '2'] }],
    ['frame x\nnot json', { code: 1, message: 'the cockpit ended the link with no reason' }],
    ['closed\n', { code: 1, message: 'cockpit night ended without a word (its server was killed?); its log: /the/log' }],
    ['broke\nlink frame too long (9 bytes, limit 8)', { code: 1, message: 'the link to cockpit night broke: link frame too long (9 bytes, limit 8)' }],
    ['signal SIGTERM\n', { code: 0, message: 'detached from cockpit night (SIGTERM); tai attach night comes back' }],
    ['signal SIGHUP\n', { code: 0 }],
  ])('reads %j as %j', (text, farewell) => {
    expect(readReport(text, who)).toEqual(farewell);
  });

  it('reads no farewell from an empty or unknown report', () => {
    expect(readReport('', who)).toBeUndefined();
    expect(readReport('signal SIGKILL\n', who)).toBeUndefined();
  });
});
