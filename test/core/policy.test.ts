import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as policy from '../../src/core/policy.js';

/** Seed 001, section 9, copied verbatim: the contract. */
const SECTION_9 = `ORCH_PANELS_MAX	8
ORCH_FLUSH_INTERVAL	0.025 s
ORCH_MONITOR_INTERVAL	1.0 s
ORCH_PENDING_MAX	262144 bytes
ORCH_WRITE_MAX	32768 bytes
ORCH_LINGER	20 s
ORCH_IDLE_WARN	60 s
ORCH_IDLE_KILL	300 s
ORCH_CANCEL_GRACE	5 s
ORCH_TASK_SHOW_MAX	300 characters
ORCH_TOOL_ARGS_MAX	120 characters
ORCH_TOOL_RESULT_LINES	3
ORCH_TOOL_RESULT_COLS	160
ORCH_LABEL_MAX	60
ORCH_CALL_TIMEOUT_MS	2000
MPLEX_VPANE_MAX	8
MPLEX_VPANE_MIN_ROWS	6
MPLEX_VPANE_MIN_COLS	20
MPLEX_VPANE_MAIN_PERCENT	55
MPLEX_VPANE_OPS_MAX	16
MPLEX_VPANE_WRITE_MAX	65536 bytes
MPLEX_VPANE_HEADER_MAX	200 characters
MPLEX_VPANE_LEASE	30 s
MPLEX_VPANE_ORPHAN_LINGER	10 s
MPLEX_VPANE_LINGER_MAX	300 s`;

/** The seed's value in tai's unit: seconds become milliseconds, the rest stays. */
function expected(value: string): number {
  const [num, unit] = value.split(' ');
  return unit === 's' ? Math.round(Number(num) * 1000) : Number(num);
}

/** Seed 001 itself, where the checkout sits beside ../shared. */
const SEED = new URL('../../../shared/seeds/001_6b773734c66c49a4.txt', import.meta.url);

const constants = policy as unknown as Record<string, number>;

describe('policy', () => {
  it.each(SECTION_9.split('\n').map((line) => line.split('\t') as [string, string]))(
    'has %s with the seed value %s',
    (name, value) => {
      expect(constants[name]).toBe(expected(value));
    },
  );

  it('has the fork wall-clock range, its default and the CAP turn timeout', () => {
    expect([policy.FORK_TIMEOUT_MIN, policy.FORK_TIMEOUT_DEFAULT, policy.FORK_TIMEOUT_MAX]).toEqual([30_000, 600_000, 3_600_000]);
    expect(policy.CAP_TURN_TIMEOUT).toBe(600_000);
    expect(policy.SPILL_LIMIT).toBe(6000);
    expect(policy.AGENTS_MAX_PARALLEL).toBe(8);
  });

  // A clone without ../shared has no seed to compare: the test shows as skipped, and the table above is the contract.
  it.skipIf(!existsSync(SEED))('copies section 9 of the seed word for word (skipped where the seed is not beside the checkout)', () => {
    const text = readFileSync(SEED, 'utf8');
    const section = text.slice(text.indexOf('9. Caps and floors'), text.indexOf('10. Measured behavior'));
    const rows = section
      .split('\n')
      .filter((line) => /^[A-Z_]+\t/.test(line))
      .join('\n');
    expect(rows).toBe(SECTION_9);
  });
});
