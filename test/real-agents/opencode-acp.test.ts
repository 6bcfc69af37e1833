/** The real opencode-acp CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('opencode-acp', {});
