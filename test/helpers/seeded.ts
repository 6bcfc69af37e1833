/**
 * A seeded random generator for tests that walk many generated cases: the
 * same cases every run. A 32-bit linear congruential generator (Numerical
 * Recipes' constants) computed with Math.imul, handing out its high 24 bits:
 * the same formula in floating point loses the low bits past 2^53 and
 * repeats a handful of values (every pick a multiple of 4).
 */

/** Returns `next(n)`: an integer in [0, n), from `seed`. */
export function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 8) % n;
  };
}
