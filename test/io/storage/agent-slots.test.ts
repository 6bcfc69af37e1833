import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentsFullError } from '../../../src/core/errors.js';
import { AgentSlots, SLOT_LEASE_MS } from '../../../src/io/storage/agent-slots.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';

const T0 = 1_000_000;

describe('agent slots on the state database', () => {
  it('refuse a claim past the limit with the cap message, and take it once a slot is released', () => {
    const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-slots-')), 'tai.db'));
    const a = new AgentSlots(db, { run: 'a', limit: 2, isAlive: () => true });
    const b = new AgentSlots(db, { run: 'b', limit: 2, isAlive: () => true });
    const first = a.claim('one', T0);
    b.claim('two', T0);
    expect(() => b.claim('three', T0)).toThrow(new AgentsFullError(2, 2));
    a.release(first);
    expect(b.claim('three', T0)).toBeGreaterThan(0);
    expect(b.count(T0)).toBe(2);
    db.close();
  });

  it('reclaim a slot whose supervisor stopped renewing it once its lease expires, even with its pid alive (a reused pid)', () => {
    const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-slots-')), 'tai.db'));
    const stale = new AgentSlots(db, { run: 'gone', limit: 1, isAlive: () => true });
    const other = new AgentSlots(db, { run: 'here', limit: 1, isAlive: () => true });
    stale.claim('old', T0);
    expect(() => other.claim('new', T0 + SLOT_LEASE_MS - 1)).toThrow(AgentsFullError);
    // Renewed: the lease runs from the renewal.
    stale.renew(T0 + SLOT_LEASE_MS - 1);
    expect(() => other.claim('new', T0 + SLOT_LEASE_MS)).toThrow(AgentsFullError);
    expect(other.claim('new', T0 + 2 * SLOT_LEASE_MS - 1)).toBeGreaterThan(0);
    db.close();
  });

  it('reclaim at once the slots of a supervisor whose pid is gone', () => {
    const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-slots-')), 'tai.db'));
    new AgentSlots(db, { run: 'dead', pid: 999_999_999, limit: 1 }).claim('orphan', T0);
    expect(new AgentSlots(db, { run: 'live', limit: 1 }).claim('next', T0 + 1)).toBeGreaterThan(0);
    db.close();
  });

  it("renew the held slots and delete this supervisor's slots it no longer holds (a release whose delete failed)", () => {
    const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-slots-')), 'tai.db'));
    const a = new AgentSlots(db, { run: 'a', limit: 3, isAlive: () => true });
    const held = a.claim('kept', T0);
    const { run } = db.prepare<[], { run: string }>('SELECT run FROM slots').get()!;
    db.prepare('INSERT INTO slots (run, slot, pid, label, claimed_at, lease_until) VALUES (?, 99, ?, ?, ?, ?)').run(run, process.pid, 'lost', T0, T0 + 1);
    a.renew(T0 + 10);
    const rows = db.prepare<[], { slot: number; lease_until: number }>('SELECT slot, lease_until FROM slots').all();
    expect(rows).toEqual([{ slot: held, lease_until: T0 + 10 + SLOT_LEASE_MS }]);
    db.close();
  });
});
