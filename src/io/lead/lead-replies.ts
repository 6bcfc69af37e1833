/**
 * What each lead tool does and answers, as text a model reads: bounded (LEAD_REPLY_MAX, with the way to read more),
 * agents' values a line each, agents' text sanitized (docs/security.md). A refusal is a LeadRequestError with the
 * CLI's reason, which the server makes a tool error.
 */
import { join } from 'node:path';
import { formatElapsed } from '../../core/panel/header.js';
import { agentPage, bounded, eventText, LEAD_REPLY_MAX, pageOf } from '../../core/lead/lead-view.js';
import { sanitizeLine } from '../../core/text/sanitize.js';
import { findLane } from '../lanes/lanes.js';
import { laneDiff } from '../lanes/lane-status.js';
import { mergeLane } from '../lanes/lane-merge.js';
import { RecordStore } from '../storage/records.js';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../storage/state-db.js';
import type { LeadSession, SpawnAsk } from './lead-session.js';
import { labelsOf, LeadRequestError } from './lead-wait.js';
import type { WaitOutcome } from './lead-wait.js';

const one = (text: string): string => sanitizeLine(text);

/** The spawn tool: each agent's id, or why it did not start. */
export async function spawnReply(session: LeadSession, asks: readonly SpawnAsk[], queue: boolean): Promise<string> {
  const outcomes = await session.spawn(asks, queue);
  const lines = outcomes.map((o) =>
    o.ok === 'queued'
      ? `queued: ${one(o.label)} (place ${o.place}): every slot is taken; it starts when one frees, and wait then reports it`
      : o.ok
        ? `started agent #${o.id} ${one(o.label)}${o.shown || session.backend.where.kind === 'process' ? '' : ' (no panel)'}${o.note ? `; ${one(o.note)}` : ''}`
        : `not started: ${one(o.label)}: ${one(o.why)}`,
  );
  if (outcomes.some((o) => o.ok === false && o.full)) lines.push('the cap of 8 live agents is the machine\'s (every tai process of this user counts): wait for one to end (the wait tool), then spawn the rest, or spawn them with queue: true');
  if (outcomes.some((o) => o.ok !== false)) lines.push('they run now; call wait to get the next one that finishes or asks (it costs nothing while they work)');
  if (outcomes.every((o) => o.ok === false)) throw new LeadRequestError(lines.join('\n'));
  return bounded(lines.join('\n'), 'spawn fewer at once');
}

/** The wait tool's (and `tai wait --json`'s text) answer. */
export function waitReply(outcome: WaitOutcome, timeoutS: number, queued: { readonly size: number; readonly notes: readonly string[] } = { size: 0, notes: [] }): string {
  const queue = [...queued.notes, ...(queued.size > 0 ? [`${queued.size} spawn(s) still queued for a free slot`] : [])].map(one).join('\n');
  const body = waitBody(outcome, timeoutS);
  return queue === '' ? body : bounded(`${queue}\n\n${body}`, 'read each result with result or read_record');
}

function waitBody(outcome: WaitOutcome, timeoutS: number): string {
  if (outcome.events.length === 0 && outcome.pending.length === 0) return 'no agent of this lead is running or unreported: spawn one first (or name ids already reported to see their ends again)';
  const parts = outcome.events.map((e) => eventText(e));
  const left = outcome.pending.map((i) => `#${i}`).join(', ');
  if (outcome.timedOut && parts.length === 0) parts.push(`nothing ended or asked within ${timeoutS} s; still running: ${left}. Call wait again (it costs nothing while they work).`);
  else if (left !== '') parts.push(`still running: ${left}`);
  return bounded(parts.join('\n\n'), 'read each result with result or read_record', LEAD_REPLY_MAX);
}

/** The result tool: an agent's result so far (or its end), one page of it. */
export async function resultReply(session: LeadSession, id: number, offset: number, limit: number): Promise<string> {
  const reply = await session.backend.call({ cmd: 'poll', id });
  if (!reply.ok) throw new LeadRequestError(reply.error);
  const r = reply.data;
  const page = pageOf(r.text, offset, limit);
  if (offset > page.total) throw new LeadRequestError(`offset ${offset} is past the end of agent #${id}'s result (${page.total} characters)`);
  const head = `agent #${id} ${r.state}${r.reason ? ` (${one(r.reason)})` : ''}: ${r.chars} characters${r.finished ? '' : ' so far'}${r.recordId ? `, record ${r.recordId}` : ''}`;
  const next = page.next === null ? 'end' : `next: result (id ${id}, offset ${page.next})`;
  const whole = r.recordId ? `; the whole result: read_record (id ${r.recordId})` : '';
  return `${head}\n--- characters ${offset}..${offset + [...page.text].length} of ${page.total} (${next}${whole}) ---\n${agentPage(page.text)}`;
}

/** The read_record tool: one page of a record. */
export async function recordReply(session: LeadSession, id: string, offset: number, limit: number): Promise<string> {
  const reply = await session.backend.call({ cmd: 'record_read', id, offset, limit });
  if (!reply.ok) throw new LeadRequestError(reply.error);
  const p = reply.data;
  if (offset > p.total) throw new LeadRequestError(`offset ${offset} is past the end of record ${id} (${p.total} characters)`);
  const next = p.next === null ? 'end' : `next: read_record (id ${id}, offset ${p.next})`;
  return `record ${id}: characters ${p.offset}..${p.next ?? p.total} of ${p.total} (${next})\n${agentPage(p.text)}`;
}

/** The search_records tool: records whose text or label holds each word. */
export function searchReply(session: LeadSession, query: string, limit: number): string {
  return withDb(session, (db) => {
    const hits = new RecordStore(db).search(query, limit);
    if (hits.length === 0) return `no record matches ${JSON.stringify(query)}`;
    const lines = hits.map((h) => `${h.id}  ${new Date(h.createdAt).toISOString()}  ${h.chars} characters  ${one(h.label)}\n  ${one(h.snippet.replace(/\s+/g, ' '))}`);
    return bounded(lines.join('\n'), 'search with more words or a smaller limit');
  });
}

/** The status tool: this lead's agents (state, elapsed, tools, tokens, open question), and how many others run. */
export async function statusReply(session: LeadSession): Promise<string> {
  const [status, questions] = await Promise.all([session.backend.call({ cmd: 'status' }), session.backend.call({ cmd: 'ask_list' })]);
  if (!status.ok) throw new LeadRequestError(status.error);
  const asks = questions.ok ? questions.data.filter((q) => q.open) : [];
  const mine = status.data.agents.filter((r) => session.started.has(r.id));
  const others = status.data.agents.filter((r) => !session.started.has(r.id) && r.kind === 'agent');
  const lines = mine.map((r) => {
    const q = asks.find((a) => a.panel === r.id);
    const lane = session.lanes.get(r.id);
    return `#${r.id} ${one(r.label)}: ${r.state}, ${formatElapsed(r.elapsedMs)}, ${r.tools} tools, ${r.tokens} tokens${lane ? `, lane ${lane}` : ''}${q ? `, asks ${q.qid}: ${one(q.tool)}` : ''}${r.reason ? ` (${one(r.reason)})` : ''}`;
  });
  if (lines.length === 0) lines.push('this lead has started no agent yet');
  const where = session.backend.where.kind === 'cockpit' ? 'in the cockpit' : 'in this process (no cockpit)';
  lines.push(`${others.length} other agent(s) ${where}, not this lead's`);
  return bounded(lines.join('\n'), 'wait or result give one agent at a time');
}

/** The cancel tool: asks the agent to stop (soft, then hard). */
export async function cancelReply(session: LeadSession, id: number): Promise<string> {
  const why = session.notMine(id);
  if (why !== undefined) throw new LeadRequestError(why);
  const reply = await session.backend.call({ cmd: 'cancel', id, reason: 'cancelled by its lead' });
  if (!reply.ok) throw new LeadRequestError(reply.error);
  return `cancel requested for agent #${id}${reply.data.id === id ? '' : ` (its current attempt, #${reply.data.id})`}; wait reports its end`;
}

/** The questions tool: every question agents wait on. */
export async function questionsReply(session: LeadSession): Promise<string> {
  const reply = await session.backend.call({ cmd: 'ask_list' });
  if (!reply.ok) throw new LeadRequestError(reply.error);
  if (reply.data.length === 0) return 'no agent is waiting for an answer';
  const labels = await labelsOf(session.backend);
  const lines = reply.data.map((q) => {
    const whose = session.started.has(q.panel) ? 'yours' : 'not yours';
    const options = q.options.map((o) => `${o.id} (${one(o.name)})`).join(', ');
    return `${q.qid} agent #${q.panel} ${one(labels.get(q.panel) ?? q.label)} (${whose}) asks: ${one(q.tool)}; ${q.open ? `waiting ${formatElapsed(q.waitedMs)}` : 'queued'}; options: ${options}`;
  });
  return bounded(lines.join('\n'), 'answer the first ones, then ask again');
}

/** The answer tool. */
export async function answerReply(session: LeadSession, qid: string, option: string): Promise<string> {
  const reply = await session.backend.call({ cmd: 'ask_answer', qid, option, by: 'lead' });
  if (!reply.ok) throw new LeadRequestError(reply.error);
  return `${reply.data.qid} answered: ${one(reply.data.option.name)} (${one(reply.data.option.id)}) for agent #${reply.data.panel}`;
}

/** The lane_diff tool: a lane's changes against its base, one page, with its line count. */
export async function laneDiffReply(session: LeadSession, name: string, offset: number): Promise<string> {
  const text = await withDbAsync(session, async (db) => laneDiff(await findLane(db, name, session.cwd), false));
  if (text === '') return `the lane ${name} has no changes against its base`;
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const page = pageOf(text, offset, LEAD_REPLY_MAX - 200);
  const next = page.next === null ? 'end' : `next: lane_diff (name ${name}, offset ${page.next})`;
  return `lane ${name}: ${lines} lines, ${page.total} characters; characters ${offset}..${page.next ?? page.total} (${next})\n${agentPage(page.text)}`;
}

/** The lane_merge tool: merges the lane into the branch it was made from; a conflict is refused, as `tai lane merge` refuses it. */
export async function laneMergeReply(session: LeadSession, name: string): Promise<string> {
  return withDbAsync(session, async (db) => {
    const lane = await findLane(db, name, session.cwd);
    const merged = await mergeLane(db, lane, Date.now());
    const committed = merged.committed ? `committed the lane's uncommitted edits as ${merged.committed.slice(0, 7)}; ` : '';
    return merged.kind === 'nothing to merge'
      ? `${committed}the lane ${lane.name} has nothing ${merged.into} does not have`
      : `${committed}merged the lane ${lane.name} into ${merged.into} (${merged.kind}, now ${merged.head.slice(0, 7)})`;
  });
}

function withDb<T>(session: LeadSession, body: (db: StateDb) => T): T {
  const db = openStateDb(join(stateDir(session.env), STATE_DB_FILE));
  try {
    return body(db);
  } finally {
    db.close();
  }
}

async function withDbAsync<T>(session: LeadSession, body: (db: StateDb) => Promise<T>): Promise<T> {
  const db = openStateDb(join(stateDir(session.env), STATE_DB_FILE));
  try {
    return await body(db);
  } finally {
    if (db.open) db.close();
  }
}
