/**
 * The folder `src/io/lead/`: tai for a lead agent (docs/lead.md). This file: `tai mcp`'s tools as an MCP server
 * (the official SDK's McpServer) over any transport. Each tool's description is written for the model calling it:
 * what it does, returns and costs; a refusal is a tool error with the CLI's one-line reason.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AGENT_KINDS } from '../../core/agents/agent-registry.js';
import { PERMISSION_POLICIES } from '../../core/agents/questions.js';
import { RequestError, messageOf } from '../../core/errors.js';
import { agentPage, LEAD_REPLY_MAX, WAIT_DEFAULT_S, WAIT_MAX_S } from '../../core/lead/lead-view.js';
import { LeadCallError } from './lead-backend.js';
import type { LeadSession } from './lead-session.js';
import { LeadRequestError } from './lead-wait.js';
import * as replies from './lead-replies.js';

const ID = z.number().int().positive().describe('an agent id, as spawn returned it (3 for #3)');
const PAGE = z.number().int().min(1).max(LEAD_REPLY_MAX).optional().describe(`characters to return (1..${LEAD_REPLY_MAX}, default 3000)`);
const OFFSET = z.number().int().min(0).optional().describe('where to start, in characters (default 0)');

const AGENT = z
  .object({
    task: z.string().optional().describe("the agent's prompt: what it must do and what to answer with"),
    agent: z.string().optional().describe('a registered agent by name (e.g. "claude" or "@claude"; `tai agents` lists them)'),
    argv: z.array(z.string()).min(1).optional().describe('or a command and its arguments, run as the agent'),
    kind: z.enum(AGENT_KINDS).optional().describe('how argv speaks (default command: its output is the result)'),
    label: z.string().max(80).optional().describe("a short name for the agent's panel"),
    cwd: z.string().optional().describe('its working folder (default: the lead\'s)'),
    lane: z.union([z.string(), z.boolean()]).optional().describe('true or a name: run in a git worktree of its own (then lane_diff, lane_merge)'),
    permissions: z.enum(PERMISSION_POLICIES).optional().describe('what its permission requests get (default ask: they come to questions)'),
    timeout_s: z.number().positive().optional().describe('wall clock limit in seconds'),
    idle_cancel_s: z.number().int().positive().optional().describe('cancel after this many seconds without an event (default 300)'),
    retries: z.number().int().min(0).max(5).optional().describe('start again this many times after a failure'),
  })
  .strict();

/** What the server says about itself, where it runs. */
export function instructions(session: LeadSession): string {
  const where =
    session.backend.where.kind === 'cockpit'
      ? 'It drives the tai cockpit around you: each agent you spawn gets a panel beside you, under tai\'s supervision (heartbeat, timeouts, the cap of 8).'
      : 'No tai cockpit is around you: this server supervises the agents in its own process (no panels; they stop when it stops). Run your CLI inside `tai` to see them.';
  return `tai runs sub-agents for you. ${where} Spawn returns ids at once; then call wait, which blocks (costing you nothing) until one finishes or asks a question, and hands back the head of its result and where the rest is. Results are bounded to ${LEAD_REPLY_MAX} characters; read more with result or read_record.`;
}

/** An McpServer with the lead's tools, on `session`. */
export function createLeadServer(session: LeadSession, version: string): McpServer {
  const server = new McpServer({ name: 'tai', version }, { instructions: instructions(session) });
  const tool = <S extends z.ZodRawShape>(name: string, description: string, shape: S, body: (args: z.objectOutputType<S, z.ZodTypeAny>, extra: Extra) => Promise<string> | string): void => {
    server.registerTool(name, { description, inputSchema: shape }, (async (args: z.objectOutputType<S, z.ZodTypeAny>, extra: Extra) => answered(() => body(args, extra))) as never);
  };
  tool(
    'spawn',
    'Start one or more sub-agents on tasks (each item of agents: a task, and a registered agent name or an argv). Returns their ids at once and never waits for the work; a list past the free slots starts what fits and says why for the rest (or queues them with queue: true). Cheap: one line per agent.',
    {
      agents: z.array(AGENT).min(1).max(16).describe('the agents to start, one item each'),
      queue: z.boolean().optional().describe('those refused at the cap wait in your queue and start as slots free (wait then reports them)'),
    },
    (a) => replies.spawnReply(session, a.agents, a.queue === true),
  );
  tool(
    'wait',
    `Block until the next event among the given agent ids (or every agent you started and have not seen end): one finished (done, failed, timeout, cancelled) or asks a question. Returns each event with the head of its result, its size and record id, never a whole long result. Waits at most timeout_s (default ${WAIT_DEFAULT_S}, below the clients' 60 s tool timeouts); on a timeout it says what still runs: call it again. Costs nothing while it waits.`,
    {
      ids: z.array(ID).max(64).optional().describe('agents to wait on (default: all of yours not yet reported)'),
      all: z.boolean().optional().describe('wait until every one finished (an asking agent still ends the wait)'),
      timeout_s: z.number().min(0).max(WAIT_MAX_S).optional().describe(`seconds to wait at most (0..${WAIT_MAX_S}, default ${WAIT_DEFAULT_S})`),
    },
    (a, extra) => waitTool(session, a.ids, a.all === true, a.timeout_s ?? WAIT_DEFAULT_S, extra),
  );
  tool('result', "An agent's result (so far, or its end) from offset, one page: use it to read past the head wait showed.", { id: ID, offset: OFFSET, limit: PAGE }, (a) => replies.resultReply(session, a.id, a.offset ?? 0, a.limit ?? 3000));
  tool('read_record', 'One page of a stored record (a long result kept whole; wait and result name its id, r...).', { id: z.string().min(1).describe('the record id (r...)'), offset: OFFSET, limit: PAGE }, (a) => replies.recordReply(session, a.id, a.offset ?? 0, a.limit ?? 3000));
  tool('search_records', 'Find stored records (past results) whose text or label holds each word; returns ids, sizes and a snippet each.', { query: z.string().min(1), limit: z.number().int().min(1).max(20).optional() }, (a) => replies.searchReply(session, a.query, a.limit ?? 10));
  tool('status', 'Your agents: state, elapsed time, tool calls, tokens, lane, open question; and how many others run. One line each.', {}, () => replies.statusReply(session));
  tool('cancel', 'Stop one of your agents (softly, then hard). wait then reports it cancelled with its partial result.', { id: ID }, (a) => replies.cancelReply(session, a.id));
  tool('questions', "The questions agents wait on (the one queue the user also sees): qid, agent, tool asked for, options.", {}, () => replies.questionsReply(session));
  tool('answer', "Answer an agent's question: qid from wait or questions, option one of its option ids (or its number, y or n).", { qid: z.string().min(1), option: z.string().min(1) }, (a) => replies.answerReply(session, a.qid, a.option));
  tool('lane_diff', "A lane agent's changes against its base (git diff), one bounded page with the line count.", { name: z.string().min(1).describe('the lane name spawn reported'), offset: OFFSET }, (a) => replies.laneDiffReply(session, a.name, a.offset ?? 0));
  tool('lane_merge', "Merge a finished lane into the branch it was made from; a conflict is refused and nothing changes.", { name: z.string().min(1) }, (a) => replies.laneMergeReply(session, a.name));
  return server;
}

/** What a tool handler is given besides its arguments (the request's abort signal, its progress token, a way to notify). */
export interface Extra {
  readonly signal: AbortSignal;
  readonly _meta?: { readonly progressToken?: string | number } | undefined;
  sendNotification(notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total?: number; message?: string } }): Promise<void>;
}

async function waitTool(session: LeadSession, ids: readonly number[] | undefined, all: boolean, timeoutS: number, extra: Extra): Promise<string> {
  const token = extra._meta?.progressToken;
  const onLook =
    token === undefined
      ? undefined
      : (waitedMs: number, pending: readonly number[]): void => {
          const message = `waiting on ${pending.map((i) => `#${i}`).join(', ')}: ${Math.round(waitedMs / 1000)} s of ${timeoutS}`;
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: waitedMs / 1000, total: timeoutS, message } }).catch(() => {});
        };
  const outcome = await session.wait(ids, all, timeoutS * 1000, extra.signal, onLook);
  return replies.waitReply(outcome, timeoutS, { size: session.queue.size, notes: session.queue.takeNotes() });
}

/**
 * Runs a tool body: a refusal is a tool error with its reason, anything else an internal one. Every reply passes
 * the sanitizer once more, so no path (an error's message included) hands the lead an agent's controls.
 */
async function answered(body: () => Promise<string> | string): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: agentPage(await body()) }] };
  } catch (err) {
    const known = err instanceof LeadRequestError || err instanceof LeadCallError || err instanceof RequestError || (err instanceof Error && /Registry|UnknownAgent|StateDb|Lane/.test(err.name));
    return { content: [{ type: 'text', text: agentPage(known ? messageOf(err) : `internal error: ${messageOf(err)}`) }], isError: true };
  }
}
