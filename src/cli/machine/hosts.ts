/**
 * `tai hosts [--json]`: the hosts connected to from this state folder, their shared connection and round trip;
 * `tai hosts check NAME`: whether remote agents can run there (docs/remote.md, "`tai hosts`"). `check` exits 1
 * when the host cannot, 69 when ssh cannot reach it, 64 for a bad host name.
 */
import { readCommandLine, usageError } from '../command-line.js';
import { field, processOutput, type CliOutput } from '../output.js';
import { BadHostError, checkHost } from '../../core/remote/host-name.js';
import { PROBE_SCRIPT, readProbe, type Finding } from '../../core/remote/host-probe.js';
import { shQuote } from '../../core/remote/sh-quote.js';
import { RegistryError, type AgentEntry } from '../../core/agents/agent-registry.js';
import { messageOf } from '../../core/errors.js';

const USAGE =
  'usage: tai hosts [--json]          the hosts of remote agents (tai spawn --host): connection up or not, round trip\n' +
  '       tai hosts check NAME        can remote agents run on NAME: ssh, a banner, what it lacks (docs/remote.md)\n';

const SPEC = { name: 'hosts', usage: USAGE, options: { json: { type: 'boolean' } } } as const;

/** Runs `tai hosts ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const line = readCommandLine(SPEC, args, out);
  if (typeof line === 'number') return line;
  const [verb, name, extra] = line.positionals;
  if (verb === 'check') {
    if (name === undefined || extra !== undefined) return usageError(SPEC, out, 'check takes one host');
    return check(name, out, env);
  }
  if (verb !== undefined) return usageError(SPEC, out, `unknown word '${verb}'`);
  const { controlDir, knownHosts } = await import('../../io/remote/control-dir.js');
  const { hostState } = await import('../../io/remote/ssh-master.js');
  const rows = await Promise.all(knownHosts(controlDir(env)).map((host) => hostState(host, env)));
  if (line.values.json === true) {
    out.json(rows);
    return 0;
  }
  if (rows.length === 0) {
    out.say('no host yet (tai spawn --host NAME -- CMD runs an agent on one)\n');
    return 0;
  }
  for (const row of rows) out.say(`${field(row.host)}  ${row.up ? `connected  ${row.rttMs} ms` : 'not connected'}\n`);
  return 0;
}

async function check(name: string, out: CliOutput, env: NodeJS.ProcessEnv): Promise<number> {
  try {
    checkHost(name);
  } catch (err) {
    if (!(err instanceof BadHostError)) throw err;
    out.warn(`tai hosts: ${field(err.message)}\n`);
    return 64;
  }
  const { probeHost } = await import('../../io/remote/ssh-master.js');
  let stdout: string;
  try {
    stdout = await probeHost(name, PROBE_SCRIPT, env);
  } catch (err) {
    const reason = err instanceof Error && 'reason' in err && typeof err.reason === 'string' ? err.reason : messageOf(err);
    out.say(`NO   ssh fails: ${field(reason)}\n`);
    return 69;
  }
  const { findings, usable } = readProbe(stdout);
  const agents = await entryFindings(name, env);
  for (const f of [...findings, ...agents, await reaperFinding(name, env)]) out.say(`${f.ok ? 'ok  ' : 'NO  '} ${field(f.text)}\n`);
  return usable && agents.every((f) => f.ok) ? 0 : 1;
}

/** Which reaper agents on the host run under (native copied, built there, or sh) and why; chosen as an agent's start would. */
async function reaperFinding(host: string, env: NodeJS.ProcessEnv): Promise<Finding> {
  const { hostReaper, describeHostReaper } = await import('../../io/host-reaper/host-reaper.js');
  const { placeOf } = await import('../../io/remote/ssh-master.js');
  return { ok: true, text: describeHostReaper(await hostReaper(placeOf(host, env), env, { unshared: true })) };
}

/** The registry's entries that name `host`: whether each one's program is on the host's PATH (or at its path). */
async function entryFindings(host: string, env: NodeJS.ProcessEnv): Promise<Finding[]> {
  const { loadRegistry } = await import('../../io/agents/spawn/agent-config.js');
  const { probeHost } = await import('../../io/remote/ssh-master.js');
  let entries: readonly AgentEntry[];
  try {
    entries = (await loadRegistry(undefined, env)).entries.filter((e) => e.host === host);
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    return [{ ok: false, text: `the registry cannot be read: ${err.message}` }];
  }
  if (entries.length === 0) return [];
  const programs = entries.map((e) => e.command[0] ?? '');
  const script = `for c in ${programs.map(shQuote).join(' ')}; do if command -v "$c" >/dev/null 2>&1; then echo "have $c"; else echo "lack $c"; fi; done`;
  let answer: string;
  try {
    answer = await probeHost(host, script, env);
  } catch (err) {
    return [{ ok: false, text: `the registry's agents of ${host} could not be looked for: ${messageOf(err)}` }];
  }
  const have = new Set(answer.split('\n').filter((l) => l.startsWith('have ')).map((l) => l.slice(5)));
  return entries.map((e) => {
    const program = e.command[0] ?? '';
    return have.has(program) ? { ok: true, text: `@${e.name}: ${program} found` } : { ok: false, text: `@${e.name}: no ${program} on its PATH: install it there, or change the entry's command (tai agents)` };
  });
}
