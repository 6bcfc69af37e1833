/**
 * `tai spawn --lane [NAME]`: a flag with an optional value, which parseArgs cannot read, so it is taken out first:
 * `--lane=NAME`, or `--lane NAME` when the next word is not `--`, an option or `@agent` (a bad name is refused, not
 * run), else a lane named from the label.
 */

/** The command line without its `--lane`, and the lane asked for ('' for a name from the label), if any. */
export function takeLaneFlag(args: readonly string[]): { readonly args: string[]; readonly lane?: string } {
  const rest: string[] = [];
  let lane: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (arg.startsWith('--lane=')) {
      lane = arg.slice('--lane='.length);
      continue;
    }
    if (arg === '--lane') {
      // The next word is the lane's name unless it is `--`, an option or @agent: one that is not a valid
      // name is refused as a lane name (by the lane's own check), never run as the program.
      const next = args[i + 1];
      if (next !== undefined && next !== '' && !next.startsWith('-') && !next.startsWith('@')) {
        lane = next;
        i++;
      } else lane = '';
      continue;
    }
    rest.push(arg);
  }
  return lane === undefined ? { args: rest } : { args: rest, lane };
}
