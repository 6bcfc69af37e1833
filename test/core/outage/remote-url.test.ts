import { describe, expect, it } from 'vitest';
import { isNetworkRemote } from '../../../src/core/outage/remote-url.js';

describe('which git remotes can prove the network back', () => {
  it.each([
    ['https://github.com/o/r.git', true],
    ['ssh://git@host/r.git', true],
    ['git://127.0.0.1:9418/r.git', true],
    ['git@github.com:o/r.git', true],
    ['host:r.git', true],
    ['/srv/git/r.git', false],
    ['../r.git', false],
    ['./r', false],
    ['r.git', false],
    ['file:///srv/git/r.git', false],
    ['FILE:///srv/r', false],
    ['dir/with:colon', false],
    ['', false],
  ])('%s: %s', (url, network) => {
    expect(isNetworkRemote(url)).toBe(network);
  });
});
