/** Exhaustiveness check for switches over unions: reaching it is a bug. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
