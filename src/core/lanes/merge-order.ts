/**
 * The merge order `tai lane order` proposes (docs/lanes.md, "Merge order"): the lanes that go clean are a set with
 * no two in conflict, so the most is the conflict graph's largest independent set, merged first; ties go to fewer
 * conflicts, then the older lane. Exact up to EXACT_MAX lanes, greedy past that.
 */

/** A proposed order: the lanes that merge clean first, then those that will conflict, and with whom. */
export interface MergeOrder {
  readonly order: readonly string[];
  /** Lanes whose merge will conflict in this order, with the earlier lanes (or the base branch) they conflict with. */
  readonly conflicted: readonly { readonly lane: string; readonly with: readonly string[] }[];
  /** Whether the clean set is the largest there is (up to EXACT_MAX lanes), or a greedy one. */
  readonly exact: boolean;
}

/** Lanes past this count are ordered greedily (2^n subsets are tried up to it). */
export const EXACT_MAX = 16;

/** The base branch, as an earlier "lane" a conflict can be with. */
export const BASE = '(base branch)';

/** Proposes a merge order of `lanes` (oldest first) given their pairwise conflicts and those with the base branch. */
export function mergeOrder(lanes: readonly string[], conflicts: readonly (readonly [string, string])[], withBase: readonly string[] = []): MergeOrder {
  const index = new Map(lanes.map((l, i) => [l, i]));
  const adj = lanes.map(() => new Set<number>());
  for (const [a, b] of conflicts) {
    const i = index.get(a);
    const j = index.get(b);
    if (i === undefined || j === undefined || i === j) continue;
    adj[i]?.add(j);
    adj[j]?.add(i);
  }
  const blocked = new Set(withBase.map((l) => index.get(l)).filter((i): i is number => i !== undefined));
  const byDegree = (i: number, j: number): number => (adj[i]?.size ?? 0) - (adj[j]?.size ?? 0) || i - j;
  const free = lanes.map((_, i) => i).filter((i) => !blocked.has(i));
  const exact = free.length <= EXACT_MAX;
  const clean = exact ? largestIndependent(free, adj, byDegree) : greedyIndependent(free, adj, byDegree);
  const cleanSet = new Set(clean);
  const rest = lanes.map((_, i) => i).filter((i) => !cleanSet.has(i)).sort(byDegree);
  const order = [...clean.sort(byDegree), ...rest];
  const conflicted: { lane: string; with: string[] }[] = [];
  order.forEach((i, at) => {
    const earlier = order.slice(0, at).filter((j) => adj[i]?.has(j)).map((j) => lanes[j] ?? '');
    const all = blocked.has(i) ? [BASE, ...earlier] : earlier;
    if (all.length > 0) conflicted.push({ lane: lanes[i] ?? '', with: all });
  });
  return { order: order.map((i) => lanes[i] ?? ''), conflicted, exact };
}

/** The largest set of `nodes` with no edge inside, by trying every subset; among equals, the first in `better` order. */
function largestIndependent(nodes: readonly number[], adj: readonly Set<number>[], better: (i: number, j: number) => number): number[] {
  const sorted = [...nodes].sort(better);
  let best: number[] = [];
  const n = sorted.length;
  for (let mask = 0; mask < 1 << n; mask++) {
    const pick = sorted.filter((_, k) => (mask >> k) & 1);
    if (pick.length <= best.length) continue;
    if (pick.every((i, k) => pick.slice(k + 1).every((j) => !adj[i]?.has(j)))) best = pick;
  }
  return best;
}

/** Fewest conflicts first, skipping any lane that conflicts with one taken. */
function greedyIndependent(nodes: readonly number[], adj: readonly Set<number>[], better: (i: number, j: number) => number): number[] {
  const taken: number[] = [];
  for (const i of [...nodes].sort(better)) if (!taken.some((j) => adj[i]?.has(j))) taken.push(i);
  return taken;
}
