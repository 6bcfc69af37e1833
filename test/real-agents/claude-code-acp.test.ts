/** The real claude-code-acp CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('claude-code-acp', {});
