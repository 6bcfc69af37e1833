/**
 * What an agent tells its panel (docs/spec.md, "Formatter and sanitizing" and
 * "Event sources"). Every runner turns its own protocol into these; the
 * formatter turns them into bytes.
 */

/** One event from an agent; every event is also a heartbeat. */
export type AgentEvent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thought'; readonly text: string }
  | { readonly type: 'tool_start'; readonly name: string; readonly args: string; readonly id?: string }
  | { readonly type: 'tool_end'; readonly name: string; readonly result: string; readonly failed: boolean; readonly id?: string }
  | { readonly type: 'plan'; readonly entries: readonly string[] }
  | { readonly type: 'note'; readonly text: string }
  | { readonly type: 'error'; readonly text: string }
  /** The agent's token total so far (input plus output); runners that receive increments sum them. */
  | { readonly type: 'usage'; readonly tokens: number }
  /** The agent's own session id (Claude Code's session_id, Codex's thread id, an ACP sessionId): what a restore resumes (docs/restore.md). */
  | { readonly type: 'session'; readonly id: string };

/** The kind of an event, for tables and counters. */
export type AgentEventType = AgentEvent['type'];
