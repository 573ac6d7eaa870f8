// The process logger (pino, JSON lines). HTTP request logs carry the request id through Fastify's child loggers.
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      // Tokens and secrets must never reach a log line, whatever object is logged.
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          '*.access_token',
          '*.refresh_token',
          '*.password',
          '*.token',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
