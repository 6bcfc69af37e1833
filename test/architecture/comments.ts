/**
 * Every comment of a source file, found through the parser's tokens: a bare
 * scanner cannot tell a regex from a division or where a template literal's
 * `${…}` ends, so it loses its place and skips the comments after them.
 * And the source files the parser-reading guards walk (`sourceFiles`).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

export interface Comment {
  /** The comment's first line, from 1. */
  line: number;
  /** Its text, quoted text ("…" and `…`) blanked with its line breaks kept. */
  text: string;
}

const isJsDoc = (node: ts.Node): boolean => node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode;
const isJsxText = (node: ts.Node): boolean => node.kind === ts.SyntaxKind.JsxText || node.kind === ts.SyntaxKind.JsxTextAllWhiteSpaces;

/** The tokens of a tree as the parser read them (regexes and template parts whole), JSDoc left out (its text is a comment). */
function tokens(node: ts.Node, source: ts.SourceFile, out: ts.Node[]): ts.Node[] {
  const children = node.getChildren(source).filter((child) => !isJsDoc(child));
  if (children.length === 0) out.push(node);
  for (const child of children) tokens(child, source, out);
  return out;
}

/** The comments of a file's text: the trivia before each token, on its own lines (leading) or after the last token (trailing). */
export function comments(fileName: string, text: string): Comment[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const ranges = new Map<number, ts.CommentRange>();
  for (const token of tokens(source, source, [])) {
    // A JSX text's slashes are words on the screen, not a comment.
    if (isJsxText(token)) continue;
    const found = [...(ts.getLeadingCommentRanges(text, token.pos) ?? []), ...(ts.getTrailingCommentRanges(text, token.pos) ?? [])];
    for (const range of found) ranges.set(range.pos, range);
  }
  return [...ranges.values()]
    .sort((a, b) => a.pos - b.pos)
    .map((range) => ({
      line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
      text: text.slice(range.pos, range.end).replace(/"[^"]*"|`[^`]*`/g, (quoted) => quoted.replace(/[^\n]/g, ' ')),
    }));
}

/** Every .ts and .tsx source under `dir` (relative to `root`), declarations, node_modules and the native build's output left out. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = posix.join(dir, name);
    if (name === 'node_modules' || name === 'build') return [];
    if (statSync(join(root, rel)).isDirectory()) return sourceFiles(root, rel);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

export interface CommentBlock {
  /** The block's first line, from 1. */
  line: number;
  /** How many lines it spans. */
  lines: number;
  /** The file's header: the block before its first line of code. */
  header: boolean;
}

/** A file's comment blocks: comments each on its own lines and on adjacent lines read as one block. */
export function commentBlocks(fileName: string, text: string): CommentBlock[] {
  const rows = text.split('\n');
  const ownLine = (line: number): boolean => rows[line - 1].trim().startsWith('/');
  const out: CommentBlock[] = [];
  for (const c of comments(fileName, text)) {
    const lines = c.text.split('\n').length;
    const last = out.at(-1);
    if (last && ownLine(c.line) && ownLine(last.line) && last.line + last.lines === c.line) last.lines += lines;
    else out.push({ line: c.line, lines, header: false });
  }
  const code = rows.findIndex((row) => !/^\s*($|\/|\*|#!)/.test(row)) + 1;
  if (out[0] && (code === 0 || out[0].line < code)) out[0].header = true;
  return out;
}
