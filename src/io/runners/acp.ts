/**
 * The `acp` kind: any Agent Client Protocol agent over stdio (`gemini --acp`,
 * `opencode acp`, claude-agent-acp, codex-acp, goose ...) through
 * `@agentclientprotocol/sdk` 2.4.0: initialize, session/new, one
 * session/prompt with the task; session/update notifications become events
 * (src/core/decoders/acp.ts). Permission requests are answered by policy:
 * rejected by default, accepted with `allow`, and shown as a Note either way.
 * Soft stop: session/cancel, and every pending permission request is answered
 * `cancelled`; hard stop: SIGKILL to the agent's process group. The turn's end
 * also ends the agent: it is a server that would otherwise wait forever.
 */
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { classify, sayFailure } from '../../core/classify.js';
import { AcpDecoder } from '../../core/decoders/acp.js';
import { LineDecoder } from '../../core/decoders/lines.js';
import { spawnGroup } from './process-group.js';
import { ResultText } from './result-text.js';
import type { EmitEvent, RunOutcome, Runner, RunningAgent, RunSpec } from './runner.js';

/** What the SDK rejects a pending request with when the agent's process is gone (LIBRARY-NOTES). */
const ACP_CLOSED = 'ACP connection closed';

/** The last stderr lines kept to explain a failure. */
const STDERR_KEEP = 5;

type PermissionAnswer = acp.RequestPermissionResponse;

/** Starts an ACP agent and sends it the task as one prompt. */
export const runAcp: Runner = (spec: RunSpec, emit: EmitEvent): RunningAgent => {
  const group = spawnGroup(spec.argv, { ...(spec.cwd ? { cwd: spec.cwd } : {}), ...(spec.env ? { env: spec.env } : {}) });
  const result = new ResultText();
  const decoder = new AcpDecoder();
  const stderr = new LineDecoder(2_000);
  const lastErr: string[] = [];
  group.stderr.on('data', (chunk: Buffer) => {
    for (const line of stderr.push(chunk).lines) {
      lastErr.push(line);
      if (lastErr.length > STDERR_KEEP) lastErr.shift();
    }
  });
  let sessionId: string | undefined;
  let stopping = false;
  let killed = false;

  const connection = acp
    .client({ name: 'tai' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const out = decoder.update(params.update);
      result.append(out.text);
      for (const event of out.events) emit(event);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const title = params.toolCall.title ?? decoder.toolName(params.toolCall.toolCallId) ?? 'a tool';
      if (stopping) return { outcome: { outcome: 'cancelled' } } satisfies PermissionAnswer;
      const wanted = spec.allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
      const option = params.options.find((o) => o.kind === wanted[0]) ?? params.options.find((o) => o.kind === wanted[1]);
      if (!option) {
        emit({ type: 'note', text: `permission asked for ${title}: no ${spec.allow ? 'allow' : 'reject'} option, answered cancelled` });
        return { outcome: { outcome: 'cancelled' } };
      }
      emit({ type: 'note', text: `permission asked for ${title}: ${spec.allow ? 'allowed' : 'rejected'} (${option.name})${spec.allow ? '' : '; --allow accepts'}` });
      // The policy answers at once, so no request stays pending past a stop;
      // one that arrives after the stop was asked for is answered cancelled above.
      const answer: PermissionAnswer = { outcome: { outcome: 'selected', optionId: option.optionId } };
      return answer;
    })
    .connect(acp.ndJsonStream(Writable.toWeb(group.stdin) as WritableStream<Uint8Array>, Readable.toWeb(group.stdout) as ReadableStream<Uint8Array>));

  const turn = async (): Promise<RunOutcome> => {
    await connection.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'tai', version: '0.1.0' },
    });
    const session = await connection.agent.request(acp.methods.agent.session.new, { cwd: spec.cwd ?? process.cwd(), mcpServers: [] });
    sessionId = session.sessionId;
    if (stopping) {
      void connection.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      return { state: 'failed', summary: 'stopped before the prompt' };
    }
    const response = await connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: spec.prompt ?? '' }],
    });
    return response.stopReason === 'end_turn'
      ? { state: 'done', summary: 'end_turn' }
      : { state: 'failed', summary: `stop reason ${response.stopReason}` };
  };

  const ended: Promise<RunOutcome> = (async () => {
    let outcome: RunOutcome;
    try {
      outcome = await turn();
    } catch (err) {
      if (killed) outcome = { state: 'failed', summary: 'killed after the grace' };
      else {
        const exit = group.reaper.exitCode ?? group.reaper.signalCode;
        const why = describeError(err, Date.now());
        const detail = exit !== null && lastErr.length > 0 ? ` (${lastErr.join(' | ')})` : '';
        emit({ type: 'error', text: `${why}${detail}` });
        const stderr = lastErr.length > 0 ? [{ stderr: lastErr.join('\n'), ...(typeof exit === 'number' ? { exitCode: exit } : {}) }] : [];
        outcome = { state: 'failed', summary: why, failure: [{ agentError: err }, ...stderr] };
      }
    }
    // The prompt's response is handled at once, the notifications before it
    // through a few awaits each: let them land before closing drops them.
    await new Promise<void>((resolve) => setImmediate(resolve));
    connection.close();
    group.stdin.end();
    group.kill();
    await group.exited;
    return outcome;
  })();

  return {
    get pgid() {
      return group.pgid();
    },
    ended,
    result: () => result.toString(),
    soft: () => {
      stopping = true;
      if (sessionId !== undefined) void connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => {});
    },
    hard: () => {
      killed = true;
      group.kill();
    },
  };
};

/**
 * One line for a failed turn: its message, with the kind the one classifier
 * (src/core/classify.ts) finds said first ("rate limited: ...", "connection
 * lost: ...", "model service down: ..."). An agent that died mid-turn is said
 * so, since the SDK only says its connection closed.
 */
export function describeError(err: unknown, now?: number): string {
  const message = err instanceof Error ? err.message : String(err);
  if (message === ACP_CLOSED) return 'the agent exited mid-turn (ACP connection closed)';
  return sayFailure(classify({ error: err }, now), message);
}
