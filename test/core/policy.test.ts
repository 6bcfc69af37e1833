import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as policy from '../../src/core/policy.js';
import * as schedule from '../../src/core/outage/outage-schedule.js';

/** docs/spec.md, "Constants": the contract, one row per constant. */
const SPEC = readFileSync(new URL('../../docs/spec.md', import.meta.url), 'utf8');

/** Milliseconds per unit of the spec's value column; a unit not listed is a count. */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000 };

/** The spec's rows: constant name to its value in code's units (durations in ms). */
function specRows(): Map<string, number> {
  // The policy table ends at the first subsection; the limits defined elsewhere follow (test/core/spec-constants.test.ts).
  const start = SPEC.indexOf('## Constants');
  const section = SPEC.slice(start, SPEC.indexOf('\n#', start + 1));
  const rows = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([A-Z_]+)` \| ([0-9.]+)(?: ([a-z]+))? \|/.exec(line);
    if (cells) rows.set(cells[1]!, Number(cells[2]) * (UNIT_MS[cells[3] ?? ''] ?? 1));
  }
  return rows;
}

/** Every numeric constant of a module, by name. */
function numbers(module: Record<string, unknown>): [string, number][] {
  return Object.entries(module).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
}

describe('policy', () => {
  const rows = specRows();

  it.each([...numbers(policy), ...numbers(schedule)])('has %s in docs/spec.md, "Constants", with its value %d', (name, value) => {
    expect(rows.get(name)).toBe(value);
  });

  it('lists no constant in docs/spec.md that the code lacks', () => {
    const known = new Set([...numbers(policy), ...numbers(schedule)].map(([name]) => name));
    expect([...rows.keys()].filter((name) => !known.has(name))).toEqual([]);
  });

  it('keeps the values the contract names', () => {
    expect([policy.FORK_TIMEOUT_MIN, policy.FORK_TIMEOUT_DEFAULT, policy.FORK_TIMEOUT_MAX]).toEqual([30_000, 600_000, 3_600_000]);
    expect([policy.ORCH_IDLE_WARN, policy.ORCH_IDLE_KILL, policy.ORCH_CANCEL_GRACE]).toEqual([60_000, 300_000, 5_000]);
    expect(policy.CAP_TURN_TIMEOUT).toBe(600_000);
    expect(policy.SPILL_LIMIT).toBe(6000);
    expect(policy.AGENTS_MAX_PARALLEL).toBe(8);
  });
});
