export { delay, withTimeout } from './abort.js';
export { type Deferred, deferred } from './deferred.js';
export { type Logger, consoleLogger, silentLogger } from './logger.js';
