/**
 * What a question is about, for the inbox's rules: whose it is (panel, `@name`, lane) and what the tool would do
 * (names, command, paths), read from the question as the runners build it (src/core/agents/question-block.ts).
 */
import type { QuestionAsk } from '../agents/questions.js';

/** A question's subject. */
export interface Subject {
  readonly panel: number;
  /** The registry name the agent was started by (`@x` in its label), without the `@`. */
  readonly agent?: string;
  /** The lane the agent works in (its panel tag `⎇ NAME`). */
  readonly lane?: string;
  /** The names a rule's tool may match: the title, its first word, the kind. */
  readonly names: readonly string[];
  /** The shell command, when the tool runs one. */
  readonly command?: string;
  /** The paths the tool touches, as given. */
  readonly paths: readonly string[];
}

/** Who asks: the panel, its label and its tag. */
export interface Asker {
  readonly panel: number;
  readonly label: string;
  readonly tag?: string;
}

const COMMAND_KEYS = ['command', 'cmd'];
const PATH_KEYS = ['file_path', 'path', 'notebook_path', 'filePath'];

/** The subject of `ask` asked by `who`. */
export function subjectOf(ask: QuestionAsk, who: Asker): Subject {
  const names = new Set<string>([ask.tool]);
  const first = ask.tool.trim().split(/\s+/)[0];
  if (first) names.add(first);
  if (ask.toolKind) names.add(ask.toolKind);
  const agent = /^@([a-z0-9][a-z0-9_-]*)/.exec(who.label)?.[1];
  const lane = who.tag === undefined ? undefined : /^⎇ (\S+)/.exec(who.tag)?.[1];
  const command = commandOf(ask);
  return {
    panel: who.panel,
    ...(agent === undefined ? {} : { agent }),
    ...(lane === undefined ? {} : { lane }),
    names: [...names],
    ...(command === undefined ? {} : { command }),
    paths: pathsOf(ask),
  };
}

/**
 * A `command: ...` detail line's command; one over several lines reads `a\nb`, which no prefix rule may judge.
 * An ACP `execute` tool without one: its title without backquotes.
 */
function commandOf(ask: QuestionAsk): string | undefined {
  const at = ask.detail.findIndex((d) => d.tone === 'plain' && COMMAND_KEYS.some((k) => d.text.startsWith(`${k}: `)));
  if (at >= 0) {
    const line = ask.detail[at]?.text ?? '';
    const value = line.slice(line.indexOf(': ') + 2);
    const next = ask.detail[at + 1];
    return next !== undefined && next.text.startsWith('  ') ? `${value}\n${next.text.trim()}` : value;
  }
  if (ask.toolKind === 'execute') return ask.tool.replace(/^`(.*)`$/, '$1');
  return undefined;
}

function pathsOf(ask: QuestionAsk): string[] {
  const paths: string[] = [];
  for (const d of ask.detail) {
    const key = PATH_KEYS.find((k) => d.text.startsWith(`${k}: `));
    if (d.tone === 'plain' && key !== undefined) paths.push(d.text.slice(key.length + 2));
    if (d.tone !== 'meta') continue;
    const m = /^at (.+?)(?::\d+)?$/.exec(d.text) ?? /^new file (.+)$/.exec(d.text) ?? /^(.+) @ line \d+$/.exec(d.text);
    if (m?.[1]) paths.push(m[1]);
  }
  return [...new Set(paths)];
}

/** The tool name a rule from a key or the list's batch takes: the tool's kind when the agent gives one (stable across titles), else its title's first word. */
export function ruleToolOf(question: QuestionAsk): string {
  return question.toolKind ?? question.tool.trim().split(/\s+/)[0] ?? question.tool;
}
