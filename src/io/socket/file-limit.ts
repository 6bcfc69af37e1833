/**
 * The open-file limit (RLIMIT_NOFILE), which bounds the cockpit's connections, ptys and pipes. Node raises the soft
 * limit to the hard one itself at start (PlatformInit, src/node.cc), so there is no setrlimit to call: the
 * connection cap is only sized to the limit read here.
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
