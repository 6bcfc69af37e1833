/** The real claude-agent-acp CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('claude-agent-acp', {});
