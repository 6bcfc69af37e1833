import { describe, expect, it } from 'vitest';
import { PROBE_BEGIN, readProbe } from '../../../src/core/remote/host-probe.js';

const FULL = [PROBE_BEGIN, 'have sh', 'have env', 'have grep', 'have mkdir', 'have sleep', 'have setsid', 'have codex', 'lack claude', 'lack cc', 'have /proc', 'uname Linux aarch64', ''].join('\n');

describe("reading a host's probe", () => {
  it('finds a usable host with its agent CLIs', () => {
    const { findings, usable } = readProbe(FULL);
    expect(usable).toBe(true);
    expect(findings.map((f) => f.text)).toContain('agent CLIs: codex');
    expect(findings[0]).toEqual({ ok: true, text: 'ssh works (Linux aarch64)' });
  });

  it('says a banner printed before the output would mix into every agent', () => {
    const { findings } = readProbe(`Welcome to the build box!\n${FULL}`);
    expect(findings.find((f) => !f.ok)?.text).toMatch(/prints 1 line\(s\) before a command's output \(first: "Welcome to the build box!"\)/);
  });

  it('says what a host lacks: the reaper tools, /proc, setsid, an agent CLI', () => {
    const bare = [PROBE_BEGIN, 'have sh', 'lack env', 'have grep', 'have mkdir', 'have sleep', 'lack setsid', 'lack /proc', 'uname Darwin arm64'].join('\n');
    const { findings, usable } = readProbe(bare);
    expect(usable).toBe(false);
    const texts = findings.map((f) => f.text);
    expect(texts).toContain('lacks env: the reaper cannot run there');
    expect(texts).toContain('no setsid: agents get their own group by job control instead');
    expect(texts.some((t) => t.startsWith('no /proc'))).toBe(true);
    expect(texts.some((t) => t.startsWith('no agent CLI'))).toBe(true);
  });

  it('says so when the login shell did not run the probe', () => {
    expect(readProbe('fish: Unknown command\n').usable).toBe(false);
  });
});
