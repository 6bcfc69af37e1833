/** The options of `tai ask` and its verbs (ask.ts, ask-rules.ts, ask-log.ts), read once by ask.ts. */
import type { CommandLine } from '../command-line.js';

/** Every option of every verb. */
export const ASK_OPTIONS = {
  socket: { type: 'string' },
  json: { type: 'boolean' },
  'all-matching': { type: 'string' },
  agent: { type: 'string' },
  lane: { type: 'string' },
  all: { type: 'boolean' },
  path: { type: 'string' },
  prefix: { type: 'string' },
  for: { type: 'string' },
  until: { type: 'string' },
  save: { type: 'boolean' },
  everything: { type: 'boolean' },
  limit: { type: 'string' },
} as const;

/** The options read, as the verbs take them. */
export type AskOptions = CommandLine<typeof ASK_OPTIONS>['values'];
