/** The real Claude Code CLI under tai without --input-format stream-json: its soft stop is SIGINT, which it answers by exiting 0. */
import { realAgentSuite } from './scenarios.js';

const same = 'the same CLI and output as claude.test.ts; only the stops differ without --input-format';
realAgentSuite('claude-sigint', {
  tool: same,
  long: same,
  'rate-limit': same,
  refused: same,
  'server-error': same,
  permission: same,
  ask: same,
});
