/**
 * The board's actions over an agent's life (docs/spec.md, "The board" and
 * "Supervision"): a panel opened (under the cap), its events heard and
 * formatted, held through an outage, stopped, finished and closed; a feed pane
 * written; a question asked and answered (store/board-questions.ts).
 */
import { AgentsFullError, RequestError } from '../src/core/errors.js';
import { areaRows } from '../src/core/panel/layout.js';
import { isLive, type FinalState } from '../src/core/panel/panel-state.js';
import { focusAfterClose, unzoomed } from './board-ui.js';
import { layoutOf } from './board-snapshot.js';
import type { BoardActions } from './board-types.js';
import { feedChange, feedRefusal, mainPercentOf } from './feed-panes.js';
import { formatEvent, openScreen } from './panel-output.js';
import { callHook, endRecord, heard, holdRecord, openRecord, requestStop, resumeRecord } from './supervision.js';
import { DEFAULT_COLS, DEFAULT_ROWS, type BoardContext } from './board-context.js';

/** The actions that open, feed, stop, finish and close panels, and the questions' doors. */
export type LifecycleActions = Pick<
  BoardActions,
  'open' | 'emit' | 'write' | 'feed' | 'hold' | 'resume' | 'tag' | 'finish' | 'setCancel' | 'cancel' | 'closeByUser' | 'close' | 'shutdown' | 'ask' | 'answer' | 'questions' | 'questionOf' | 'onAsked' | InboxAction
>;

/** The lifecycle actions over the board's private state. */
export function lifecycleActions(ctx: BoardContext): LifecycleActions {
  return { ...feedingActions(ctx), ...endingActions(ctx), ...questionActions(ctx) };
}

/** Opening a panel and what feeds it: an agent's events, a feed pane's bytes and ops. */
function feedingActions(ctx: BoardContext): Pick<LifecycleActions, 'open' | 'emit' | 'write' | 'feed'> {
  const { records, vars, wakes, events, counters, options } = ctx;
  return {
    open(spec, now) {
      const kind = spec.kind ?? 'agent';
      const s = ctx.get();
      if (kind === 'agent' && spec.host === undefined) {
        // The cap counts the agents of this machine: one on a host holds a slot there instead (docs/remote.md).
        const live = [...records.values()].filter((r) => r.kind === 'agent' && r.host === undefined && isLive(r.state)).length;
        if (live >= ctx.maxLive) throw new AgentsFullError(live, ctx.maxLive);
      } else if (kind !== 'agent') {
        const refusal = feedRefusal(records, { cols: s.cols, rows: areaRows(s.rows, s.statusLine), drawingOff: vars.drawingOff });
        if (refusal !== null) throw new RequestError(refusal);
        vars.mainPercent = mainPercentOf(spec, vars.mainPercent);
      }
      const id = vars.nextId++;
      const rec = openRecord(id, spec, now, { cols: DEFAULT_COLS, rows: DEFAULT_ROWS });
      records.set(id, rec);
      if (vars.drawingOff === null && options.createScreen) {
        // Size it where the layout will put it, so the opening line wraps right.
        const lay = layoutOf(records, { cols: s.cols, rows: s.rows, zoom: null, drawingOff: vars.drawingOff, mainPercent: vars.mainPercent, statusLine: s.statusLine });
        const place = lay.panels.find((p) => p.id === id)?.rect ?? { cols: DEFAULT_COLS, rows: DEFAULT_ROWS };
        const failed = openScreen(rec, place, options.createScreen);
        if (failed !== null) ctx.disableDrawing(failed);
        if (rec.formatter && rec.task) ctx.queue(rec, rec.formatter.opening(rec.task));
      }
      ctx.setUi(unzoomed(s));
      wakes.notify(); // a new record: the watchdog ticks again
      ctx.publish(now);
      return id;
    },

    emit(id, event, now) {
      if (events.taps.length !== 0) events.tell(id, event, now);
      const rec = records.get(id);
      if (!rec || rec.kind !== 'agent' || !isLive(rec.state)) return;
      counters.events++;
      heard(rec, event, now);
      if (rec.formatter) {
        ctx.queue(rec, formatEvent(rec, event, counters));
        // A held word is released by a later flush; a backlog is formatted by the next ones.
        if (rec.formatter.holding || rec.formatter.backlog) wakes.wake();
      }
    },

    write(id, data, now) {
      const rec = ctx.kept.get(id);
      if (rec) {
        // A finished agent's kept transcript takes lines too (a lane dropped after its panel left), formatted when it is reopened:
        // its formatter keeps them (it has no screen to write to), and no wake-up is armed.
        rec.formatter?.raw(data);
        return;
      }
      const on = ctx.get1(id);
      on.lastEventAt = now;
      if (on.screen) ctx.queue(on, on.formatter ? on.formatter.raw(data) : data); // kept, so a new width formats it again
    },

    feed(id, op, now) {
      const rec = ctx.get1(id);
      rec.lastEventAt = now;
      vars.feedDirty = true;
      wakes.wake();
      Object.assign(rec, feedChange(rec, op, now));
    },
  };
}

/** An agent held, resumed, tagged, stopped and finished; a panel closed. */
function endingActions(ctx: BoardContext): Pick<LifecycleActions, 'hold' | 'resume' | 'tag' | 'finish' | 'setCancel' | 'cancel' | 'closeByUser' | 'close' | 'shutdown'> {
  const { records, questions, sup } = ctx;
  return {
    hold(id, service, now, options) {
      if (holdRecord(ctx.get1(id), service, now, options)) ctx.publish(now);
    },

    resume(id, now) {
      const rec = records.get(id);
      if (!rec || !resumeRecord(rec, now)) return;
      if (questions.openOf(id)) rec.state = 'asking'; // held while asking: back to waiting for the user
      ctx.publish(now);
    },

    tag(id, text, now) {
      if (retagged(ctx, id, text)) ctx.publish(now);
    },

    finish(id, state, summary, now) {
      const rec = records.get(id);
      if (!rec || !isLive(rec.state)) return rec?.state as FinalState | undefined;
      const final = endRecord(sup, rec, state, summary, now);
      ctx.publish(now);
      return final;
    },

    setCancel(id, soft, hard) {
      const rec = ctx.get1(id);
      if (rec.soft) return;
      rec.soft = soft;
      if (hard) rec.hard = hard;
      // A stop asked for before the owner was ready still reaches it.
      if (rec.stop && !rec.softCalled) {
        rec.softCalled = true;
        callHook(sup, soft, rec.stop.reason, id);
      }
    },

    cancel(id, reason, now, cause = 'owner') {
      const rec = records.get(id);
      if (!rec) return false;
      const asked = requestStop(sup, rec, cause, reason, now);
      if (asked) ctx.publish(now);
      return asked;
    },

    closeByUser(id, now) {
      const rec = records.get(id);
      if (!rec || rec.closed) return false;
      ctx.setUi(focusAfterClose(ctx.get(), id));
      if (rec.kind === 'agent' && isLive(rec.state)) {
        requestStop(sup, rec, 'user', 'closed by the user', now);
        ctx.detach(rec);
      } else ctx.remove(rec);
      ctx.publish(now);
      return true;
    },

    close(id, now) {
      const rec = records.get(id);
      if (!rec) return false;
      if (rec.kind === 'agent' && isLive(rec.state)) ctx.detach(rec);
      else ctx.remove(rec);
      ctx.publish(now);
      return true;
    },

    shutdown(reason, now) {
      for (const rec of records.values()) requestStop(sup, rec, 'shutdown', reason, now);
      ctx.publish(now);
    },
  };
}

/** The questions' doors (store/board-questions.ts). */
type InboxAction = 'addRule' | 'ruleFromKey' | 'rules' | 'dropRule' | 'answerAll' | 'onAudit';

function questionActions(ctx: BoardContext): Pick<LifecycleActions, 'ask' | 'answer' | 'questions' | 'questionOf' | 'onAsked' | InboxAction> {
  const { questions } = ctx;
  return {
    ask(id, ask, now, reply) {
      const qid = questions.ask(id, ask, now, reply);
      ctx.publish(now);
      return qid;
    },

    answer(qid, key, by, now) {
      const answered = questions.answer(qid, key, by, now);
      ctx.publish(now);
      return answered;
    },

    questions(now) {
      return questions.list(now);
    },

    questionOf(id) {
      return questions.openOf(id);
    },

    onAsked(listener) {
      return questions.onAsked(listener);
    },

    addRule(req, saved, now) {
      const added = questions.addRule(req, saved, now);
      ctx.publish(now);
      return added;
    },

    ruleFromKey(id, decision, now) {
      const added = questions.ruleFromKey(id, decision, now);
      ctx.publish(now);
      return added;
    },

    rules(now) {
      return questions.inbox.list(now);
    },

    dropRule(id, now) {
      return questions.inbox.drop(id, now);
    },

    answerAll(filter, key, by, now) {
      const answered = questions.answerAll(filter, key, by, now);
      ctx.publish(now);
      return answered;
    },

    onAudit(listener) {
      return questions.inbox.onAudit(listener);
    },
  };
}

/** Sets the tag of agent `id`'s record and history row; false when it has neither or the tag is the same. */
function retagged(ctx: BoardContext, id: number, text: string): boolean {
  // A panel that left the board keeps its tag for when it is reopened.
  const rec = ctx.records.get(id) ?? ctx.kept.get(id);
  const h = ctx.history.findIndex((r) => r.id === id);
  if (rec?.kind === 'feed' || (rec ? rec.tag === text : h < 0 || ctx.history[h]!.tag === text)) return false;
  if (rec) rec.tag = text;
  // A finished agent's row in the history follows (the agent list shows it once the panel left).
  if (h >= 0) ctx.history[h] = { ...ctx.history[h]!, tag: text };
  ctx.rows.moved();
  return true;
}
