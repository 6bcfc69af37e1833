/** `tai demo`: not built yet (issue 3). */
export async function run(_args: readonly string[]): Promise<number> {
  process.stderr.write('tai demo: not built yet\n');
  return 2;
}
