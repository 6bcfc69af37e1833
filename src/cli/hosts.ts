/**
 * `tai hosts [--json]`: the hosts tai has connected to from this state
 * folder, whether their shared connection is up, and its round trip.
 * `tai hosts check NAME`: whether remote agents can run there: ssh works,
 * a banner mixes into output, what the host lacks (docs/remote.md).
 * Exit 0; `check` exits 1 when the host cannot run remote agents, 69 when
 * ssh cannot reach it, 64 for a bad host name.
 */
import { readCommandLine, usageError } from './command-line.js';
import { field, processOutput, type CliOutput } from './output.js';
import { BadHostError, checkHost } from '../core/remote/host-name.js';
import { PROBE_SCRIPT, readProbe } from '../core/remote/host-probe.js';
import { messageOf } from '../core/errors.js';

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
  const { controlDir, knownHosts } = await import('../io/remote/control-dir.js');
  const { hostState } = await import('../io/remote/ssh-master.js');
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
  const { probeHost } = await import('../io/remote/ssh-master.js');
  let stdout: string;
  try {
    stdout = await probeHost(name, PROBE_SCRIPT, env);
  } catch (err) {
    const reason = err instanceof Error && 'reason' in err && typeof err.reason === 'string' ? err.reason : messageOf(err);
    out.say(`NO   ssh fails: ${field(reason)}\n`);
    return 69;
  }
  const { findings, usable } = readProbe(stdout);
  for (const f of findings) out.say(`${f.ok ? 'ok  ' : 'NO  '} ${field(f.text)}\n`);
  return usable ? 0 : 1;
}
