/**
 * Opening an ACP agent's earlier session for a restore (docs/restore.md): `session/load` when the agent offers it
 * (its replayed history dropped, as the panel already shows the stored transcript; a note counts it), else
 * `session/resume`, else a RequestError saying it cannot resume, as for an id it refuses.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { defaultLabel } from '../../../../core/agents/agent-spawn.js';
import { messageOf, RequestError } from '../../../../core/errors.js';
import type { EmitEvent } from '../runner.js';

/** What a resume needs of the session that opens it. */
export interface ResumeRequest {
  readonly sdk: typeof acp;
  readonly connection: acp.ClientConnection;
  readonly init: acp.InitializeResponse;
  /** The agent's own session id to open. */
  readonly id: string;
  readonly cwd: string;
  /** Names the agent in messages (`acp gemini`). */
  readonly label: string;
  readonly emit: EmitEvent;
  /** Turns the dropping of replayed updates on (a counter) and off (undefined). */
  replaying(on: { count: number } | undefined): void;
}

/** How an agent's capabilities let it resume a session, if at all. */
export type ResumeMethod = 'session/resume' | 'session/load';

/** The method to use for an agent that answered `initialize` with `init`: load first, then resume. */
export function resumeMethodOf(init: acp.InitializeResponse): ResumeMethod | undefined {
  const caps = init.agentCapabilities;
  if (caps?.loadSession === true) return 'session/load';
  if (caps?.sessionCapabilities?.resume != null) return 'session/resume';
  return undefined;
}

/** The label a resume's messages name the agent by: the kind and its program (`acp gemini`). */
export function resumeLabel(argv: readonly string[]): string {
  return defaultLabel('acp', argv);
}

/** The message for an agent that offers neither method. */
export function cannotResume(label: string): string {
  return `${label} cannot resume a session: its agent offers neither session/load nor session/resume; start it again with tai restart ID`;
}

/** Opens session `id` by the agent's method; throws RequestError when it cannot or refuses. */
export async function resumeSession(r: ResumeRequest): Promise<void> {
  const method = resumeMethodOf(r.init);
  if (method === undefined) throw new RequestError(cannotResume(r.label));
  const short = r.id.slice(0, 8);
  try {
    if (method === 'session/resume') {
      await r.connection.agent.request(r.sdk.methods.agent.session.resume, { sessionId: r.id, cwd: r.cwd, mcpServers: [] });
      r.emit({ type: 'note', text: `resumed session ${short} (session/resume)` });
      return;
    }
    const replay = { count: 0 };
    r.replaying(replay);
    try {
      await r.connection.agent.request(r.sdk.methods.agent.session.load, { sessionId: r.id, cwd: r.cwd, mcpServers: [] });
      // The replay's last notifications land a few awaits after the answer: still dropped.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      r.replaying(undefined);
    }
    r.emit({ type: 'note', text: `resumed session ${short} (session/load; ${replay.count} replayed updates not shown again)` });
  } catch (err) {
    throw new RequestError(`${r.label} cannot resume session ${r.id}: ${oneLine(messageOf(err))}${detail(err)}; start it again with tai restart ID`);
  }
}

/** What a JSON-RPC error's `data` adds (its message or details), if anything. */
function detail(err: unknown): string {
  const data = typeof err === 'object' && err !== null ? (err as { data?: unknown }).data : undefined;
  if (typeof data === 'string' && data !== '') return ` (${oneLine(data)})`;
  if (typeof data !== 'object' || data === null) return '';
  const said = (data as Record<string, unknown>)['message'] ?? (data as Record<string, unknown>)['details'];
  return typeof said === 'string' && said !== '' ? ` (${oneLine(said)})` : '';
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
