/** The real claude CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

// Every scenario applies: with a policy given (--allow, --permissions) tai starts it with
// --permission-prompt-tool stdio and answers its can_use_tool requests; without one, Claude -p refuses the write itself.
realAgentSuite('claude');
