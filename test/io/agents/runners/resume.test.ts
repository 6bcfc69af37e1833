/**
 * The resume of Claude Code and Codex sessions (docs/restore.md): the argv
 * each runner builds, the session id each reports, and a refused id said in
 * one line, through the real runners and a stand-in CLI that answers with the
 * argv it got (test/fixtures/resume-emitter.mjs).
 */
import { describe, expect, it } from 'vitest';
import { RequestError } from '../../../../src/core/errors.js';
import type { AgentEvent } from '../../../../src/core/events.js';
import { claudeArgv, runClaude } from '../../../../src/io/agents/runners/claude.js';
import { codexResumeArgv, runCodex } from '../../../../src/io/agents/runners/codex.js';
import type { Runner } from '../../../../src/io/agents/runners/runner.js';
import { fixture } from '../../../helpers/agents.js';

const CLAUDE = [process.execPath, fixture('resume-emitter.mjs'), 'claude', '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];
const CODEX = [process.execPath, fixture('resume-emitter.mjs'), 'codex', 'exec', '--json', '--skip-git-repo-check'];

async function run(runner: Runner, argv: string[], prompt: string, resume?: string): Promise<{ events: AgentEvent[]; text: string; state: string; summary: string }> {
  const events: AgentEvent[] = [];
  const agent = runner({ argv, prompt, ...(resume === undefined ? {} : { resume }) }, (e) => events.push(e));
  const outcome = await agent.ended;
  return { events, text: agent.result(), state: outcome.state, summary: outcome.summary };
}

describe('the argv that resumes a session', () => {
  it('is the argv with --resume ID for Claude, after the permission tool when tai answers its requests', () => {
    expect(claudeArgv({ argv: ['claude', '-p'] }, false)).toEqual(['claude', '-p']);
    expect(claudeArgv({ argv: ['claude', '-p'], resume: 's-1' }, false)).toEqual(['claude', '-p', '--resume', 's-1']);
    expect(claudeArgv({ argv: ['claude', '-p'], resume: 's-1' }, true)).toEqual(['claude', '-p', '--permission-prompt-tool', 'stdio', '--resume', 's-1']);
  });

  it('is the argv with `resume ID -` after the exec options for Codex, and refused for a codex command that runs no exec', () => {
    expect(codexResumeArgv(['codex', 'exec', '--json', '-s', 'read-only'], 't-1')).toEqual(['codex', 'exec', '--json', '-s', 'read-only', 'resume', 't-1', '-']);
    expect(() => codexResumeArgv(['codex', 'proto'], 't-1')).toThrow(RequestError);
    expect(() => codexResumeArgv(['codex', 'proto'], 't-1')).toThrow("codex cannot resume thread t-1: its command runs no 'codex exec' (codex proto); start it again with tai restart ID");
  });
});

describe('the claude runner resuming a session', () => {
  it('reports the session id of a new run, and runs --resume ID with the prompt as the next message', async () => {
    const first = await run(runClaude, CLAUDE, 'start');
    expect(first.events).toContainEqual({ type: 'session', id: 'claude-new-session' });
    expect(first.text).not.toContain('--resume');
    const second = await run(runClaude, CLAUDE, 'you were interrupted: go on', 'claude-new-session');
    expect(second.state, second.summary).toBe('done');
    expect(second.text).toBe('argv: -p --output-format stream-json --verbose --input-format stream-json --resume claude-new-session · prompt: you were interrupted: go on');
    expect(second.events).toContainEqual({ type: 'session', id: 'claude-new-session' });
  });

  it('says in one line that Claude refused the session id', async () => {
    const refused = await run(runClaude, CLAUDE, 'go on', 'unknown');
    const said = 'claude cannot resume session unknown: No conversation found with session ID: unknown; start it again with tai restart ID';
    expect(refused).toMatchObject({ state: 'failed', summary: said });
    expect(refused.events).toContainEqual({ type: 'error', text: said });
  });
});

describe('the codex runner resuming a thread', () => {
  it('reports the thread id of a new run, and runs `exec ... resume ID -` with the prompt on stdin', async () => {
    const first = await run(runCodex, CODEX, 'start');
    expect(first.events).toContainEqual({ type: 'session', id: 'codex-new-thread' });
    const second = await run(runCodex, CODEX, 'you were interrupted: go on', 'codex-new-thread');
    expect(second.state, second.summary).toBe('done');
    expect(second.text).toBe('argv: exec --json --skip-git-repo-check resume codex-new-thread - · prompt: you were interrupted: go on');
    expect(second.events).toContainEqual({ type: 'session', id: 'codex-new-thread' });
  });

  it('says in one line that Codex refused the thread id, not its backtrace', async () => {
    const refused = await run(runCodex, CODEX, 'go on', 'unknown');
    const said = 'codex cannot resume thread unknown: no rollout found for thread id unknown (code -32600); start it again with tai restart ID';
    expect(refused).toMatchObject({ state: 'failed', summary: said });
    expect(refused.events).toContainEqual({ type: 'error', text: said });
  });
});
