/** `tai net`: not built yet (issue 6). */
export async function run(_args: readonly string[]): Promise<number> {
  process.stderr.write('tai net: not built yet\n');
  return 2;
}
