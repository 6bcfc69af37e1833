/** `tai agents`: not built yet (issue 7). */
export async function run(_args: readonly string[]): Promise<number> {
  process.stderr.write('tai agents: not built yet\n');
  return 2;
}
