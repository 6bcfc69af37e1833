/**
 * The SGR codes tai writes into the lines it makes itself (a panel's
 * structural lines, a question's block): whole escape sequences, each undone
 * by RESET. The palette of the chrome (headers, separators, the status line)
 * is src/core/panel/colors.ts, as parameters.
 */

export const RESET = '\x1b[0m';
export const DIM = '\x1b[2m';
export const RED = '\x1b[31m';
export const GREEN = '\x1b[32m';
export const YELLOW = '\x1b[33m';
export const MAGENTA = '\x1b[35m';
export const MAGENTA_BOLD = '\x1b[1;35m';
export const CYAN = '\x1b[36m';
export const GREY = '\x1b[90m';
export const ORANGE = '\x1b[38;5;208m';
