/** The real claude-agent-acp CLI under tai (test/real-agents/scenarios.ts). */
import { NEVER_ASKS, realAgentSuite } from './scenarios.js';

realAgentSuite('claude-agent-acp', { permission: NEVER_ASKS, ask: 'claude-agent-acp 0.101 starts in mode auto and never asks' });
