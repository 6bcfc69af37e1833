import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run as doctorCli } from '../../src/cli/machine/doctor.js';
import { run as spawnCli } from '../../src/cli/spawn/spawn.js';
import { recordingIo } from '../helpers/recording-io.js';

const testIo = (state: string) => recordingIo({ state });

describe('tai doctor', () => {
  it('names a damaged database, moves it aside on --reset-db keeping the old file, and tai spawn works again', async () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-doc-'));
    mkdirSync(join(state, 'tai'));
    const db = join(state, 'tai', 'tai.db');
    const garbage = 'garbage, not a database '.repeat(300);
    writeFileSync(db, garbage);

    const check = testIo(state);
    expect(await doctorCli([], check)).toBe(74);
    expect(check.stderr).toContain(`tai doctor: the state database ${db} is damaged or not a database (SQLITE_NOTADB: file is not a database)`);

    const reset = testIo(state);
    expect(await doctorCli(['--reset-db'], reset)).toBe(0);
    const aside = /moved the damaged state database to (\S+) \(kept\)/.exec(reset.stdout)?.[1] as string;
    expect(aside).toMatch(/tai\.db\.corrupt-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(readFileSync(aside, 'utf8')).toBe(garbage);

    const spawned = testIo(state);
    expect(await spawnCli(['--', process.execPath, '-e', 'console.log("fresh")'], spawned)).toBe(0);
    expect(spawned.stdout).toBe('fresh\n');
    expect(readdirSync(join(state, 'tai')).filter((n) => n.includes('corrupt'))).toHaveLength(1);

    const healthy = testIo(state);
    expect(await doctorCli(['--reset-db'], healthy)).toBe(0);
    expect(healthy.stdout).toBe(`the state database ${db} is healthy; nothing to reset\n`);
  });
});
