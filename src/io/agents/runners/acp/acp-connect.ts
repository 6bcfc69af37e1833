/**
 * The start of an ACP session's agent: its stderr's last lines kept to
 * explain a failure, and its connection through `@agentclientprotocol/sdk`
 * 2.4.0 over the agent's pipes, with the handlers of the two things an agent
 * sends tai (session/update notifications, permission requests).
 */
import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { LineDecoder } from '../../../../core/decoders/lines.js';
import { pacedData, pacedWebStream } from '../../paced-read.js';
import type { GroupChild } from '../process-group.js';

/** The last stderr lines kept to explain a failure. */
const STDERR_KEEP = 5;

/** The SDK and one connection made with it. */
export interface Connected {
  readonly sdk: typeof acp;
  readonly connection: acp.ClientConnection;
}

/** What the session does with what the agent sends. */
export interface AgentHandlers {
  update(params: acp.SessionNotification): void;
  permission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
}

/**
 * The SDK, loaded on the first ACP session: with zod it is 14 MB of heap
 * that a cockpit with no ACP agent never needs (docs/perf-log.md, idle).
 */
const loadSdk = (): Promise<typeof acp> => import('@agentclientprotocol/sdk');

/** Connects to the agent of `group`; what it writes before the SDK is loaded waits in its pipe (paced reading). */
export function connectAgent(group: GroupChild, on: AgentHandlers): Promise<Connected> {
  return loadSdk().then((sdk) => {
    const connection = sdk
      .client({ name: 'tai' })
      .onNotification(sdk.methods.client.session.update, ({ params }) => on.update(params))
      .onRequest(sdk.methods.client.session.requestPermission, ({ params }) => on.permission(params))
      .connect(sdk.ndJsonStream(Writable.toWeb(group.stdin) as WritableStream<Uint8Array>, pacedWebStream(group.stdout)));
    return { sdk, connection };
  });
}

/** Keeps the last STDERR_KEEP lines of `stderr` in `lines`, oldest first. */
export function keepStderr(stderr: Readable, lines: string[]): void {
  const decoder = new LineDecoder(2_000);
  pacedData<Buffer>(stderr, (chunk) => {
    for (const line of decoder.push(chunk)) {
      if (!line.ok) continue;
      lines.push(line.text);
      if (lines.length > STDERR_KEEP) lines.shift();
    }
  });
}
