/** The real codex-acp CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('codex-acp', {});
