/**
 * Opening an ACP session, once per agent process: `initialize`, then
 * `session/new` in the agent's folder, or, for a spec with `resume`, the
 * agent's earlier session (acp-resume.ts: `session/load` or `session/resume`).
 * Every later turn continues the session opened here.
 */
import type { EmitEvent } from '../runner.js';
import type { Connected } from './acp-connect.js';
import { resumeLabel, resumeSession } from './acp-resume.js';

/** What opening needs. */
export interface OpenRequest {
  readonly argv: readonly string[];
  /** The folder session/new and session/load name (the host's, for an agent on a host). */
  readonly cwd: string;
  /** The agent's own session id to open instead of a new one. */
  readonly resume?: string;
  /** Where a resume's note goes (the first turn's panel). */
  readonly emit: EmitEvent;
  /** Turns the dropping of replayed updates on (a counter) and off (undefined). */
  replaying(on: { count: number } | undefined): void;
}

/** Initializes the agent and opens its session; resolves with the session's id. */
export async function openSession(ready: Promise<Connected>, o: OpenRequest): Promise<string> {
  const { sdk, connection } = await ready;
  const init = await connection.agent.request(sdk.methods.agent.initialize, {
    protocolVersion: sdk.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'tai', version: '0.1.0' },
  });
  if (o.resume !== undefined) {
    await resumeSession({ sdk, connection, init, id: o.resume, cwd: o.cwd, label: resumeLabel(o.argv), emit: o.emit, replaying: o.replaying });
    return o.resume;
  }
  const session = await connection.agent.request(sdk.methods.agent.session.new, { cwd: o.cwd, mcpServers: [] });
  return session.sessionId;
}
