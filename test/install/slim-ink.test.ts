/**
 * The install step that points Ink at es-toolkit's single `throttle` (src/install/slim-ink.mjs):
 * after `npm install`, Ink's build imports the one function, which is the very
 * function compat exports; run again, it changes nothing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INK = join(dirname(fileURLToPath(import.meta.resolve('ink'))), 'ink.js');

describe('the slim Ink install step', () => {
  it("leaves Ink importing es-toolkit's single throttle, the same function, and is idempotent", async () => {
    const before = readFileSync(INK, 'utf8');
    expect(before).toContain("import throttle from 'es-toolkit/compat/throttle';");
    expect(before).not.toContain("from 'es-toolkit/compat';");
    const single = (await import('es-toolkit/compat/throttle')) as { default: unknown };
    const whole = (await import('es-toolkit/compat')) as { throttle: unknown };
    expect(single.default).toBe(whole.throttle);
    expect(execFileSync(process.execPath, [join(ROOT, 'src/install/slim-ink.mjs')], { encoding: 'utf8' })).toBe('');
    expect(readFileSync(INK, 'utf8')).toBe(before);
  });
});
