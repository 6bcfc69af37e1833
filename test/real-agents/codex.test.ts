/** The real codex CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('codex', {
  permission: 'codex exec never asks: its sandbox decides (read-only by default); tai has no request to answer',
});
