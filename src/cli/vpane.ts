/** `tai vpane`: not built yet (issue 4). */
export async function run(_args: readonly string[]): Promise<number> {
  process.stderr.write('tai vpane: not built yet\n');
  return 2;
}
