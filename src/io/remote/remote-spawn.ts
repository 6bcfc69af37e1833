/**
 * A spawn with a `host` turned into a local agent of any kind: its argv wrapped (remote-agent.ts) to run the local
 * side of the host's slot and reaper, its label carrying the host (docs/remote.md, "Every kind on a host"). The
 * host is checked first, so a bad one is said before any panel.
 */
import type { CommandOf } from '../../core/protocol/commands.js';
import { RequestError } from '../../core/errors.js';
import { defaultLabel } from '../../core/agents/agent-spawn.js';
import { BadHostError, checkHost } from '../../core/remote/host-name.js';
import { countCommandLine, HOST_FULL_EXIT, hostFullMessage, readCount } from '../../core/remote/host-slots.js';
import { REMOTE_CLOCKS, type RemoteClocks } from '../../core/remote/remote-reaper.js';
import { shQuote, UnquotableWordError } from '../../core/remote/sh-quote.js';
import { AGENTS_MAX_PARALLEL } from '../../core/policy.js';
import { ControlDirError } from './control-dir.js';
import { hostCwd, wrapperArgv, type RemotePlace } from './remote-agent.js';
import { ensureMaster, HostUnreachableError, placeOf, probeHost } from './ssh-master.js';

/** Exit code of `tai spawn` when the host cannot be reached (EX_UNAVAILABLE). */
export const HOST_UNREACHABLE_EXIT = 69;

/** Why a remote spawn cannot start: the message and `tai spawn`'s exit code. */
export interface RemoteRefusal {
  readonly message: string;
  readonly exitCode: number;
}

/** The lost grace from TAI_REMOTE_GRACE (seconds), else the default. */
export function remoteClocks(env: NodeJS.ProcessEnv): RemoteClocks {
  const grace = Number(env['TAI_REMOTE_GRACE']);
  return Number.isInteger(grace) && grace > 0 ? { ...REMOTE_CLOCKS, lostGraceS: grace } : REMOTE_CLOCKS;
}

/** Where an agent of `host` runs: the connection's place, the clocks, the host's folder. */
export function remotePlace(host: string, cwd: string | undefined, env: NodeJS.ProcessEnv, graceS?: number): RemotePlace {
  const clocks = remoteClocks(env);
  return { place: placeOf(checkHost(host), env), clocks: graceS === undefined ? clocks : { ...clocks, lostGraceS: graceS }, cwd: hostCwd(cwd) };
}

/**
 * The request the runner starts for a spawn with a `host`: its argv wrapped, labelled `LABEL @HOST`, its `cwd`
 * (a folder on the host) carried in the wrapper's argument. A request without a host is returned as it is.
 */
export function hostRequest(request: CommandOf<'spawn'>, env: NodeJS.ProcessEnv = process.env): CommandOf<'spawn'> {
  const { host, cwd, host_grace: grace, ...rest } = request;
  if (host === undefined) return request;
  if (request.lane !== undefined || request.in_lane !== undefined) throw new RequestError('a lane on a host is made by tai spawn --host NAME --lane (docs/remote.md), not by a socket request');
  try {
    const remote = remotePlace(host, cwd, env, grace);
    for (const word of request.argv) shQuote(word);
    return { ...rest, argv: wrapperArgv(remote, request.argv), label: `${request.label ?? defaultLabel(request.kind, request.argv)} @${host}` };
  } catch (err) {
    if (err instanceof BadHostError || err instanceof UnquotableWordError || err instanceof ControlDirError) throw new RequestError(err.message);
    throw err;
  }
}

/** What the service adds to a remote agent's run: the folder the agent runs in on the host, for ACP's session/new. */
export interface HostReady {
  readonly agentCwd?: string;
}

/**
 * Run by the supervisor before it starts an agent on `request.host`: the host's shared connection starts here,
 * never under the agent's reaper, so no agent's stop ends it (ssh-master.ts). An ACP agent's folder is `cwd` when
 * absolute, else the host's own path of it, asked of the host.
 */
export async function hostReady(request: CommandOf<'spawn'>, env: NodeJS.ProcessEnv = process.env): Promise<HostReady> {
  if (request.host === undefined) return {};
  const host = request.host;
  // A host that cannot be reached is said by the agent's own ssh, in its panel.
  await ensureMaster(placeOf(host, env)).catch(() => undefined);
  if (request.kind !== 'acp') return {};
  const dir = hostCwd(request.cwd);
  if (dir.startsWith('/')) return { agentCwd: dir };
  try {
    const path = (await probeHost(host, dir === '' ? 'pwd' : `cd -- ${shQuote(dir)} && pwd`, env)).trim();
    if (path.startsWith('/')) return { agentCwd: path };
  } catch (err) {
    if (!(err instanceof HostUnreachableError)) throw err;
    throw new RequestError(err.message);
  }
  throw new RequestError(`no folder ${request.cwd ?? '~'} on ${host} for the ACP agent: give --cwd a folder that exists there`);
}

/**
 * Why `host` cannot take one more agent, asked before any panel opens (`supervisor`: by a process supervising it
 * itself): a bad name (64), no connection (69), all its slots live (75). Undefined when it can.
 */
export async function hostRefusal(host: string, env: NodeJS.ProcessEnv, supervisor = false): Promise<RemoteRefusal | undefined> {
  try {
    // A `tai spawn` outside a cockpit supervises its agent: the connection it starts serves the agent too.
    // Through a cockpit, this process may run inside an agent: it starts none, the cockpit does (hostReady).
    if (supervisor) await ensureMaster(placeOf(checkHost(host), env));
    const running = readCount(await probeHost(checkHost(host), countCommandLine(), env));
    if (running !== undefined && running >= AGENTS_MAX_PARALLEL) return { message: hostFullMessage(host, running), exitCode: HOST_FULL_EXIT };
    return undefined;
  } catch (err) {
    if (err instanceof BadHostError) return { message: err.message, exitCode: 64 };
    if (err instanceof HostUnreachableError || err instanceof ControlDirError) return { message: err.message, exitCode: HOST_UNREACHABLE_EXIT };
    throw err;
  }
}
