/**
 * What `tai hosts check` asks a host, read into findings: whether anything prints before a command's output (a
 * login banner would mix into every agent's), the `sh` reaper's tools, /proc, the agent CLIs, and a compiler for
 * the native reaper.
 */

/** The line the probe prints first: anything before it is a banner. */
export const PROBE_BEGIN = 'tai-probe-begin';

/** The agent CLIs looked for on the host. */
export const AGENT_CLIS = ['claude', 'codex', 'gemini', 'opencode'] as const;

/** Tools the sh reaper needs; setsid has a fallback (job control). */
const NEEDED = ['sh', 'env', 'grep', 'mkdir', 'sleep'] as const;

/** The probe, a POSIX sh command line for the host's login shell. */
export const PROBE_SCRIPT =
  `echo ${PROBE_BEGIN}; for c in ${[...NEEDED, 'setsid', ...AGENT_CLIS, 'cc', 'gcc', 'clang'].join(' ')}; do ` +
  'if command -v "$c" >/dev/null 2>&1; then echo "have $c"; else echo "lack $c"; fi; done; ' +
  'if [ -r /proc/self/environ ]; then echo "have /proc"; else echo "lack /proc"; fi; echo "uname $(uname -sm)"';

/** One finding: ok, or a lack with its consequence. */
export interface Finding {
  readonly ok: boolean;
  readonly text: string;
}

/** The probe's output read into findings, and whether the host can run remote agents. */
export function readProbe(stdout: string): { findings: Finding[]; usable: boolean } {
  const lines = stdout.split('\n');
  const begin = lines.indexOf(PROBE_BEGIN);
  if (begin < 0) return { findings: [{ ok: false, text: 'the probe printed nothing it could read: is the login shell a POSIX shell?' }], usable: false };
  const have = new Set(lines.slice(begin + 1).filter((l) => l.startsWith('have ')).map((l) => l.slice(5)));
  const uname = lines.find((l) => l.startsWith('uname '))?.slice(6) ?? '?';
  const findings: Finding[] = [{ ok: true, text: `ssh works (${uname})` }];
  const banner = lines.slice(0, begin).filter((l) => l.trim() !== '');
  if (banner.length > 0) findings.push({ ok: false, text: `the login shell prints ${banner.length} line(s) before a command's output (first: ${JSON.stringify(banner[0]?.slice(0, 60))}): it would mix into every agent's output; make the startup files quiet when not interactive` });
  const missing = NEEDED.filter((t) => !have.has(t));
  if (missing.length > 0) findings.push({ ok: false, text: `lacks ${missing.join(', ')}: the reaper cannot run there` });
  if (!have.has('setsid')) findings.push({ ok: true, text: 'no setsid: agents get their own group by job control instead' });
  findings.push(have.has('/proc') ? { ok: true, text: 'has /proc: descendants that call setsid are stopped too' } : { ok: false, text: 'no /proc: only the agent\'s process group is stopped, not descendants that call setsid' });
  const clis = AGENT_CLIS.filter((c) => have.has(c));
  findings.push(clis.length > 0 ? { ok: true, text: `agent CLIs: ${clis.join(', ')}` } : { ok: false, text: `no agent CLI (${AGENT_CLIS.join(', ')}) on its PATH: command agents only` });
  const compiler = ['cc', 'gcc', 'clang'].find((c) => have.has(c));
  findings.push(compiler ? { ok: true, text: `compiler: ${compiler} (the native reaper can be built there)` } : { ok: true, text: 'no compiler: the native reaper is copied when the host matches this machine, else the sh reaper' });
  return { findings, usable: missing.length === 0 };
}
