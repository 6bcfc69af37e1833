/**
 * The lines tai shows for a lane: its header tag (`⎇ NAME · 3 files +10 −2`),
 * the footer that says what to do next, and the age in `tai lane list`.
 */
import type { DiffStat } from './git-output.js';

/** `3 files +10 −2`; `no changes` when nothing changed. */
export function diffStatText(stat: DiffStat): string {
  if (stat.files === 0 && stat.added === 0 && stat.removed === 0) return 'no changes';
  return `${stat.files} ${stat.files === 1 ? 'file' : 'files'} +${stat.added} −${stat.removed}`;
}

/** The lane's part of a panel header: `⎇ NAME`, with the diff stat once one is known. */
export function laneTag(name: string, stat?: DiffStat): string {
  return stat === undefined ? `⎇ ${name}` : `⎇ ${name} · ${diffStatText(stat)}`;
}

/** What to do with a lane whose agent ended (the panel's footer note); a lane since dropped or merged is offered what still applies. */
export function laneNextSteps(name: string, now: 'ended' | 'dropped' | 'merged' = 'ended'): string {
  if (now === 'dropped') return `the lane ${name} was dropped: tai lane undrop ${name} brings it back (if it was dropped with --force)`;
  if (now === 'merged') return `the lane ${name} is merged: review: tai lane diff ${name} · drop: tai lane drop ${name}`;
  return `review: tai lane diff ${name} · merge: tai lane merge ${name} · drop: tai lane drop ${name}`;
}

/** An age as `45s`, `12m`, `3h`, `2d`. */
export function laneAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
