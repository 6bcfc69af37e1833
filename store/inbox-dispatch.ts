/**
 * The inbox's socket commands carried out against the board (docs/protocol.md;
 * store/dispatch.ts hands them here): batch answers and the rules. A
 * refused rule is a RuleError, whose message the CLI prints with exit 64.
 */
import type { BatchAnswered } from '../src/core/agents/questions.js';
import type { CommandOf } from '../src/core/protocol/commands.js';
import type { RuleAdded, RuleScope, RuleRow } from '../src/core/inbox/rules.js';
import type { BoardState } from './board.js';

type InboxCommand = CommandOf<'ask_answer_all' | 'ask_rule_add' | 'ask_rule_list' | 'ask_rule_drop'>;

/** Carries out one inbox command at `now`. */
export function inboxCommand(command: InboxCommand, s: BoardState, now: number): BatchAnswered | RuleAdded | readonly RuleRow[] | RuleRow {
  switch (command.cmd) {
    case 'ask_answer_all': {
      const by = `${command.by ?? 'tai ask'} (batch)`;
      return s.answerAll({ ...(command.tool === undefined ? {} : { tool: command.tool }), ...(command.agent === undefined ? {} : { agent: command.agent }) }, command.option, by, now);
    }
    case 'ask_rule_add': {
      const scope: RuleScope = command.agent !== undefined ? { kind: 'agent', agent: command.agent } : command.lane !== undefined ? { kind: 'lane', lane: command.lane } : { kind: 'all' };
      const req = {
        decision: command.decision,
        tool: command.tool,
        scope,
        expiresAt: command.expires_at,
        ...(command.path === undefined ? {} : { path: command.path }),
        ...(command.prefix === undefined ? {} : { prefix: command.prefix }),
        ...(command.everything === undefined ? {} : { everything: command.everything }),
      };
      return s.addRule(req, command.saved === true, now);
    }
    case 'ask_rule_list':
      return s.rules(now);
    case 'ask_rule_drop':
      return s.dropRule(command.rule, now);
  }
}
