/**
 * Cockpit servers outlive their terminals by design, so a test that starts
 * drawn cockpits (in tmux, in a pty) ends the ones it started: every server
 * with a card in its own runtime folder is told to stop (SIGTERM: agents
 * stopped softly, then hard) and waited for.
 */
import { runningCockpits } from '../../src/io/link/link-place.js';
import { processAlive } from '../../src/io/socket/socket-path.js';
import { testEnv } from './test-env.js';
import { until } from './until.js';

/** Ends every cockpit server whose card is in `env`'s folders (else the tests' own, test-env.ts); resolves once they are gone. */
export async function endCockpits(env: NodeJS.ProcessEnv): Promise<void> {
  const cards = runningCockpits(testEnv(env));
  for (const card of cards) {
    try {
      process.kill(card.pid, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
  await until(() => cards.every((c) => !processAlive(c.pid)), { what: 'the cockpit servers ended', timeout: 20_000 });
}
