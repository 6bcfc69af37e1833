/** The real codex-acp CLI under tai (test/real-agents/scenarios.ts). */
import { NEVER_ASKS, realAgentSuite } from './scenarios.js';

realAgentSuite('codex-acp', { permission: NEVER_ASKS });
