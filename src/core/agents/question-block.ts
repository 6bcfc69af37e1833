/**
 * A question as its panel shows it, where it cannot be missed: a magenta rule, the tool, its arguments or diff
 * (clipped, with the count left out), the options numbered and the keys that answer. Pure: SGR rows fitted to a
 * width; also the diff itself.
 */
import { assertNever } from '../never.js';
import { sanitizeLine } from '../text/sanitize.js';
import { clip } from '../text/wrap.js';
import type { DetailLine, Question } from './questions.js';
import { RULE_KEY_MINUTES } from '../inbox/rules.js';
import { CYAN, DIM, GREEN, MAGENTA, MAGENTA_BOLD, RED, RESET } from '../sgr.js';

/** Lines of detail shown at most, whatever the panel's height. */
export const DETAIL_LINES_MAX = 12;

/** Lines of one diff kept at most (the rest counted), so a huge edit stays a bounded question. */
export const DIFF_KEEP_MAX = 200;

/**
 * The rows of `question` for a `width` x `rows` panel: the detail gets the rows left after the fixed ones, at
 * most DETAIL_LINES_MAX, and says how many lines it left out.
 */
export function questionRows(question: Question, width: number, rows: number, queued: number): string[] {
  const w = Math.max(8, width);
  const fitted = (text: string): string => clip(sanitizeLine(text), w);
  const kind = question.toolKind ? ` (${question.toolKind})` : '';
  const head = [MAGENTA_BOLD + fitted(`? ${question.qid} permission: ${question.tool}${kind}`) + RESET];
  const options = question.options.map((o, i) => MAGENTA + fitted(`  ${i + 1}  ${o.name} [${o.kind.replace('_', ' ')}]`) + RESET);
  const allow = question.options.some((o) => o.kind.startsWith('allow'));
  const reject = question.options.some((o) => o.kind.startsWith('reject'));
  const keys = [
    `press 1-${question.options.length}`,
    ...(allow ? ['y allow'] : []),
    ...(reject ? ['n reject'] : []),
    // a / r: a rule allowing / rejecting this tool for this agent (docs/agents.md, "The inbox").
    `a/r rule ${RULE_KEY_MINUTES}m`,
    `tai ask answer ${question.qid} N`,
  ];
  const tail = [DIM + fitted(keys.join(' · ') + (queued > 0 ? ` · ${queued} more queued` : '')) + RESET];
  const room = Math.max(1, Math.min(DETAIL_LINES_MAX, rows - head.length - options.length - tail.length - 2));
  const detail = question.detail;
  const shownDetail = detail.length > room ? detail.slice(0, room - 1) : detail;
  const detailRows = shownDetail.map((d) => toneOf(d) + fitted(`  ${d.text}`) + RESET);
  if (detail.length > shownDetail.length) {
    const left = detail.length - shownDetail.length;
    detailRows.push(DIM + fitted(`  … ${left} more ${left === 1 ? 'line' : 'lines'} (${detail.length} in all)`) + RESET);
  }
  return [MAGENTA + '─'.repeat(Math.min(w, 40)) + RESET, ...head, ...detailRows, ...options, ...tail];
}

/** The one line a panel gets once its question is answered. */
export function answeredRow(qid: string, said: string, width: number): string {
  return GREEN + clip(sanitizeLine(`✓ ${qid} answered: ${said}`), Math.max(8, width)) + RESET;
}

/** The line a panel gets when a rule answered its question: `✓ q5 (Bash) answered by rule R3 (allow Bash for @x, 12 min left): Allow`. */
export function ruleAnsweredRow(qid: string, tool: string, note: string, option: string, width: number): string {
  return GREEN + clip(sanitizeLine(`✓ ${qid} (${tool}) answered by rule ${note}: ${option}`), Math.max(8, width)) + RESET;
}

function toneOf(line: DetailLine): string {
  switch (line.tone) {
    case 'add':
      return GREEN;
    case 'del':
      return RED;
    case 'meta':
      return CYAN;
    case 'plain':
      return DIM;
    default:
      return assertNever(line.tone);
  }
}

/**
 * A diff's lines: a `path` line, then the changed middle (common head and tail cut, one line of context kept on
 * each side), `-` removed, `+` added. Enough to judge an edit; not a minimal diff.
 */
export function diffLines(path: string, oldText: string | null | undefined, newText: string): DetailLine[] {
  const a = oldText === null || oldText === undefined || oldText === '' ? [] : oldText.split('\n');
  const b = newText === '' ? [] : newText.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: DetailLine[] = [{ text: a.length === 0 ? `new file ${path}` : `${path} @ line ${start + 1}`, tone: 'meta' }];
  if (start > 0) out.push({ text: `  ${a[start - 1] ?? ''}`, tone: 'plain' });
  for (const line of a.slice(start, endA)) out.push({ text: `- ${line}`, tone: 'del' });
  for (const line of b.slice(start, endB)) out.push({ text: `+ ${line}`, tone: 'add' });
  if (endA < a.length) out.push({ text: `  ${a[endA] ?? ''}`, tone: 'plain' });
  if (out.length > DIFF_KEEP_MAX) {
    const left = out.length - DIFF_KEEP_MAX;
    return [...out.slice(0, DIFF_KEEP_MAX), { text: `… ${left} more diff lines`, tone: 'meta' }];
  }
  return out;
}

/** A tool's arguments as detail lines: one `key: value` per field of an object, else its JSON. */
export function argumentLines(input: unknown): DetailLine[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'object' && !Array.isArray(input)) {
    return Object.entries(input as Record<string, unknown>).flatMap(([key, value]) => {
      const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
      const lines = text.split('\n');
      return lines.slice(0, DIFF_KEEP_MAX).map((line, i) => ({ text: i === 0 ? `${key}: ${line}` : `  ${line}`, tone: 'plain' as const }));
    });
  }
  return [{ text: typeof input === 'string' ? input : JSON.stringify(input) ?? '', tone: 'plain' }];
}
