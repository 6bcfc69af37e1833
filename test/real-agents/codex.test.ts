/** The real codex CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('codex', {
  ask: 'codex exec never asks: its sandbox decides; there is no question to put to the user',
  permission: 'codex exec never asks: its sandbox decides (read-only by default); tai has no request to answer',
});
