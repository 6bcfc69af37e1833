/** `tai report`: not built yet (issue 6). */
export async function run(_args: readonly string[]): Promise<number> {
  process.stderr.write('tai report: not built yet\n');
  return 2;
}
