import { type FastifyBaseLogger, LogController } from 'fastify';
import pino, { type Logger } from 'pino';

const LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/** LOG_LEVEL in pino's words; Nest's own names (`log`, `verbose`) are accepted too. */
export const pinoLevel = (level: string): string =>
  LEVELS.includes(level) ? level : level === 'verbose' ? 'trace' : 'info';

/**
 * The service's one logger: JSON lines on stdout (or `destination`), at LOG_LEVEL. Fastify gives
 * each request a child carrying `requestId`, and Nest's loggers write through it (nestjs-pino),
 * so every line logged while a request is handled names the request.
 */
export const serviceLogger = (level: string, destination?: pino.DestinationStream): Logger => {
  const options = { level: pinoLevel(level), base: { service: 'arbor' } };
  return destination === undefined ? pino(options) : pino(options, destination);
};

/**
 * Fastify's logging options over that logger: the request's child carries `requestId`; Fastify's
 * own per-request lines are off, the access line being ours (observe.ts).
 */
export const fastifyLogging = (log: Logger) => ({
  loggerInstance: log as FastifyBaseLogger,
  logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
});
