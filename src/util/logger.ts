/** The one logging seam: libraries never write to stdout (it is the stdio transport's protocol channel). */
export interface Logger {
  debug(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

export const silentLogger: Logger = {
  debug() {},
  warn() {},
  error() {},
};

/** Writes to stderr only. */
export const consoleLogger: Logger = {
  debug(message, data) {
    if (process.env.AGENTFORGE_DEBUG) console.error(`[agentforge] ${message}`, data ?? '');
  },
  warn(message, data) {
    console.error(`[agentforge] warning: ${message}`, data ?? '');
  },
  error(message, data) {
    console.error(`[agentforge] error: ${message}`, data ?? '');
  },
};
