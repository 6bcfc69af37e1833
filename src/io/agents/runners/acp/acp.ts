/**
 * The folder `src/io/agents/runners/acp/`: the Agent Client Protocol runner, its session, kept sessions,
 * permissions, steering and resume. This file: the `acp` kind, deciding what a spawn does with an AcpSession: one
 * turn in a session of its own, or, with a session key and a pool, a kept session continued (docs/agents.md,
 * "Kept sessions"). Soft stop: session/cancel; hard stop: SIGKILL to the agent's process group.
 */
import type { AcpSessionPool } from './acp-pool.js';
import { AcpSession, type AcpSessionSpec, type AcpTurn } from './acp-session.js';
import { SteeredTurns } from './acp-steer.js';
import { policyOf, type AskUser, type EmitEvent, type Runner, type RunningAgent, type RunSpec } from '../runner.js';

export { describeError } from './acp-failure.js';

/** The acp runner; with a pool, spawns that name a session key keep their session between turns. */
export function acpRunner(pool?: AcpSessionPool): Runner {
  return (spec, emit, ask) => (spec.session !== undefined && pool ? keptTurn(pool, spec.session, spec, emit, ask) : oneTurn(spec, emit, ask));
}

/** Starts an ACP agent, sends it the task as one prompt, and ends it with the turn. */
export const runAcp: Runner = acpRunner();

function oneTurn(spec: RunSpec, emit: EmitEvent, ask: AskUser | undefined): RunningAgent {
  const session = new AcpSession(sessionSpecOf(spec));
  const turn = steered(session, spec, emit, false, ask);
  const ended = turn.ended.then(async ({ outcome }) => {
    await session.close();
    return outcome;
  });
  return agentOf(session, turn, ended);
}

function keptTurn(pool: AcpSessionPool, key: string, spec: RunSpec, emit: EmitEvent, ask: AskUser | undefined): RunningAgent {
  const { session } = pool.acquire(key, sessionSpecOf(spec));
  const turn = steered(session, spec, emit, true, ask);
  let kept = false;
  const ended = turn.ended.then(async ({ outcome, reusable }) => {
    if (reusable) {
      kept = true;
      pool.release(session);
    } else await pool.drop(session);
    return outcome;
  });
  return agentOf(session, turn, ended, (state) => {
    // The turn gave its session back before supervision named its end a timeout.
    if (kept && state === 'timeout') pool.dropIdle(session);
  });
}

/** The spawn's turns: the task, then each message the user steers in (acp-steer.ts). */
function steered(session: AcpSession, spec: RunSpec, emit: EmitEvent, announce: boolean, ask: AskUser | undefined): SteeredTurns {
  const first = startTurn(session, spec, spec.prompt ?? '', emit, announce, ask);
  return new SteeredTurns(first, (prompt) => startTurn(session, spec, prompt, emit, false, ask), emit);
}

function startTurn(session: AcpSession, spec: RunSpec, prompt: string, emit: EmitEvent, announce: boolean, ask: AskUser | undefined): AcpTurn {
  return session.turn({
    prompt,
    policy: policyOf(spec),
    ...(ask ? { ask } : {}),
    ...(spec.askTimeoutMs === undefined ? {} : { askTimeoutMs: spec.askTimeoutMs }),
    ...(spec.askDefault === undefined ? {} : { askDefault: spec.askDefault }),
    emit,
    announce,
  });
}

function agentOf(session: AcpSession, turn: SteeredTurns, ended: RunningAgent['ended'], finished?: RunningAgent['finished']): RunningAgent {
  return {
    get pgid() {
      return session.pgid;
    },
    ended,
    result: () => turn.result(),
    soft: () => turn.soft(),
    hard: () => turn.hard(),
    steer: (text) => turn.steer(text),
    ...(finished === undefined ? {} : { finished }),
  };
}

function sessionSpecOf(spec: RunSpec): AcpSessionSpec {
  return { argv: spec.argv, ...(spec.cwd ? { cwd: spec.cwd } : {}), ...(spec.agentCwd ? { agentCwd: spec.agentCwd } : {}), ...(spec.env ? { env: spec.env } : {}), ...(spec.resume === undefined ? {} : { resume: spec.resume }) };
}
