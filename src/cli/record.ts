/** `tai record`: not built yet (issue 5). */
export async function run(_args: readonly string[]): Promise<number> {
  process.stderr.write('tai record: not built yet\n');
  return 2;
}
