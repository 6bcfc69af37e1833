/**
 * `TAI_BENCH_BASE=/path/to/another/tai/tree npm run bench -- idle`: this
 * tree's cockpit and that tree's (its src/bin/tai and its build) side by side
 * in the same windows, so that a change is read against the same load: 8
 * silent agents attached beside tmux with its seconds clock, then both
 * detached, in TAI_BENCH_IDLE_ROUNDS rounds (default 2). Each cell is the
 * median of the rounds and, in brackets, their lowest and highest.
 */
import { idleSessions, measureRound, type IdleMeasure, type IdleWindows, type Round } from './idle.js';

/** The rows of the comparison (measure | this tree | the base | tmux). */
export async function idleBaseRows(base: string, quick: boolean, rounds: number): Promise<string[]> {
  const windows: IdleWindows = quick ? { first: { from: 10, seconds: 10 }, second: { from: 25, seconds: 10 } } : { first: { from: 35, seconds: 22 }, second: { from: 80, seconds: 30 } };
  const ours = idleSessions(windows);
  const theirs = idleSessions(windows, base);
  type Key = 'tai' | 'base' | 'tmux' | 'taiDetached' | 'baseDetached';
  const seen: Partial<Record<Key, IdleMeasure[]>> = {};
  const steal: string[] = [];
  for (let i = 0; i < rounds; i++) {
    // Which tree starts first alternates, in case starting order matters.
    const pair = <A extends Key, B extends Key>(a: A, fa: () => Promise<unknown>, b: B, fb: () => Promise<unknown>) => (i % 2 === 0 ? { [a]: fa, [b]: fb } : { [b]: fb, [a]: fa });
    const attached = { ...pair('tai', ours.tai(true, {}), 'base', theirs.tai(true, {})), tmux: ours.tmux('8c', 8, true) } as Round<Key>;
    const detached = pair('taiDetached', ours.detached, 'baseDetached', theirs.detached) as Round<Key>;
    for (const round of [attached, detached]) {
      const r = await measureRound(round, windows);
      for (const [k, m] of Object.entries(r.measures) as [Key, IdleMeasure][]) (seen[k] ??= []).push(m);
      steal.push(r.steal.map((x) => x.toFixed(2)).join(' / '));
    }
  }
  const cell = (k: Key, pick: (m: IdleMeasure) => number, d = 3): string => {
    const xs = (seen[k] ?? []).map(pick).sort((a, b) => a - b);
    if (xs.length === 0) return '';
    const mid = xs.length % 2 === 1 ? xs[(xs.length - 1) / 2]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2;
    return `${mid.toFixed(d)} (${xs[0]!.toFixed(d)}-${xs.at(-1)!.toFixed(d)})`;
  };
  const row = (what: string, a: Key, b: Key, t: Key | undefined, pick: (m: IdleMeasure) => number, d = 3) => `| ${what} | ${cell(a, pick, d)} | ${cell(b, pick, d)} | ${t ? cell(t, pick, d) : ''} |`;
  return [
    row('8 silent agents attached, first window: % of a core', 'tai', 'base', 'tmux', (m) => m.cpuPct),
    row('same, second window', 'tai', 'base', 'tmux', (m) => m.laterPct),
    row('8 silent agents detached, first window: % of a core', 'taiDetached', 'baseDetached', undefined, (m) => m.cpuPct),
    row('same, second window', 'taiDetached', 'baseDetached', undefined, (m) => m.laterPct),
    row('attached: wake-ups a second, second window', 'tai', 'base', 'tmux', (m) => m.laterWakeupsPerS, 2),
    row('detached: wake-ups a second, second window', 'taiDetached', 'baseDetached', undefined, (m) => m.laterWakeupsPerS, 2),
    row('RSS MB attached (server + client)', 'tai', 'base', 'tmux', (m) => m.rss, 1),
    `| the host's steal in the windows, by round, % of a core | ${steal.join(', ')} | | |`,
  ];
}
