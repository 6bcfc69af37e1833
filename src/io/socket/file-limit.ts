/**
 * The process's limit on open files (RLIMIT_NOFILE), which bounds how many
 * socket connections, ptys and agents' pipes the cockpit can hold at once.
 * Node has no setrlimit, and needs none: at start it raises the soft limit
 * to the hard one itself (PlatformInit in Node's src/node.cc; measured on
 * Node 20: under `prlimit --nofile=1024:4096` a Node process reads 4096).
 * What is left is to size the connection cap to the limit, read here.
 */
import { readFileSync } from 'node:fs';

/** The soft and hard limit on open files; `Infinity` for unlimited. */
export interface FileLimit {
  readonly soft: number;
  readonly hard: number;
}

/** The open-file limit now, read from /proc/self/limits; undefined where there is none (not Linux). */
export function fileLimit(limitsText?: string): FileLimit | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  const num = (s: string | undefined): number => (s === 'unlimited' ? Infinity : Number(s));
  const soft = num(m[1]);
  const hard = num(m[2]);
  return Number.isNaN(soft) || Number.isNaN(hard) ? undefined : { soft, hard };
}
