import { describe, expect, it } from 'vitest';
import { takeLaneFlag } from '../../../src/core/lanes/lane-args.js';

describe('tai spawn --lane [NAME]', () => {
  it('takes the next word as the lane name, even one that is not a valid name, so it is refused and never run', () => {
    expect(takeLaneFlag(['--lane', 'Fix', '--', 'echo', 'hi'])).toEqual({ args: ['--', 'echo', 'hi'], lane: 'Fix' });
    expect(takeLaneFlag(['--lane', 'fix-1', '--', 'echo'])).toEqual({ args: ['--', 'echo'], lane: 'fix-1' });
  });

  it('names the lane from the label when no name follows: --, an option, @agent or nothing', () => {
    expect(takeLaneFlag(['--lane', '--', 'echo'])).toEqual({ args: ['--', 'echo'], lane: '' });
    expect(takeLaneFlag(['--lane', '--label', 'x', '--', 'echo'])).toEqual({ args: ['--label', 'x', '--', 'echo'], lane: '' });
    expect(takeLaneFlag(['--lane', '@claude', 'fix it'])).toEqual({ args: ['@claude', 'fix it'], lane: '' });
    expect(takeLaneFlag(['--detach', '--lane'])).toEqual({ args: ['--detach'], lane: '' });
    expect(takeLaneFlag(['--lane=Bad', '--', 'x'])).toEqual({ args: ['--', 'x'], lane: 'Bad' });
  });
});
