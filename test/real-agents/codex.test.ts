/** The real codex CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('codex', {
  refused: 'codex exec never fails on a refused connection: it retries by itself forever ("Reconnecting... waiting for network", error lines that are heartbeats), so there is no failure for tai to hold; the wall clock ends it',
  permission: 'codex exec never asks: its sandbox decides (read-only by default); tai has no request to answer',
});
