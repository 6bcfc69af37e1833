/** The real claude-code-acp CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('claude-code-acp', {
  tokens: 'claude-code-acp 0.16.2 reports no usage at all: no usage_update, none in the prompt response',
});
