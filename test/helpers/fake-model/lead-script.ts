/**
 * The fake model as a lead agent (docs/lead.md): offered tai's MCP tools, it
 * calls `spawn` with the worker's argv, then `wait` on the id spawn returned,
 * then ends its turn with the first line of the worker's result head as
 * `wait` handed it back. Each step is read off the conversation so far (the
 * request body, whatever the dialect), so the final text can only hold the
 * head if the CLI really carried both tool results back.
 */
import type { Reply, ToolSpec } from './dialect.js';
import type { Json } from './json.js';

/** What the lead spawns. */
export interface LeadScript {
  readonly argv: readonly string[];
  readonly label?: string;
}

/** The text the lead ends with, before the worker's head line. */
export const LEAD_FINAL = "The worker's result head:";

/** The lead's next step for a request offering `tools`, or undefined when tai's tools are not offered (a side request). */
export function leadStep(tools: readonly ToolSpec[], body: Json, script: LeadScript, n: number): Omit<Reply, 'usage'> | undefined {
  const spawn = tools.find((t) => /(^|_)spawn$/.test(t.name));
  const wait = tools.find((t) => /(^|_)wait$/.test(t.name));
  if (!spawn || !wait) return undefined;
  const seen = JSON.stringify(body);
  const head = /--- head ---(?:\\n|\n)+((?:(?!\\n)[^\n"])+)/.exec(seen)?.[1];
  if (head !== undefined) return { text: `${LEAD_FINAL} ${head}` };
  const id = /started agent #(\d+)/.exec(seen)?.[1];
  if (id !== undefined) return { text: 'Waiting for the worker.', toolCall: { id: `call_tai_${n}`, name: wait.name, args: { ids: [Number(id)], timeout_s: 50 }, ...namespaceOf(wait) } };
  return { text: 'Starting a worker.', toolCall: { id: `call_tai_${n}`, name: spawn.name, args: { agents: [{ argv: [...script.argv], label: script.label ?? 'worker', task: 'print the answer' }] }, ...namespaceOf(spawn) } };
}

function namespaceOf(tool: ToolSpec): { namespace?: string } {
  return tool.namespace === undefined ? {} : { namespace: tool.namespace };
}
