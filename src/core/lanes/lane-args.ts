/**
 * `tai spawn --lane [NAME]`: a flag whose value is optional, which node's
 * parseArgs cannot read. It is taken out of the command line before the rest
 * is parsed: `--lane=NAME`, or `--lane NAME` when the next word is a lane
 * name (never `--`, an option, or `@agent`), else a lane named from the label.
 */
import { LANE_NAME } from './lane-name.js';

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
      const next = args[i + 1];
      if (next !== undefined && LANE_NAME.test(next)) {
        lane = next;
        i++;
      } else lane = '';
      continue;
    }
    rest.push(arg);
  }
  return lane === undefined ? { args: rest } : { args: rest, lane };
}
