/** The real opencode-acp CLI under tai (test/real-agents/scenarios.ts). */
import { NEVER_ASKS, realAgentSuite } from './scenarios.js';

realAgentSuite('opencode-acp', { permission: NEVER_ASKS, ask: 'opencode acp never asks with its default config' });
