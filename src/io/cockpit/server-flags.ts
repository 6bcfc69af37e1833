/**
 * The Node flags the cockpit's server is started with (src/io/link/server-launch.ts):
 * tai starts that process itself, so it can choose them. Measured in
 * `npm run bench -- cockpit` (docs/performance.md).
 */

/** The flags, in the order given to node. */
export const SERVER_NODE_FLAGS: readonly string[] = [];
