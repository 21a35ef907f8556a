import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

export interface LoggerSettings {
  level: string;
  format?: 'auto' | 'pretty' | 'json';
  name?: string;
  /** File descriptor to write to: 1 (stdout, servers) or 2 (stderr, CLI commands whose stdout is data). */
  fd?: 1 | 2;
}

/**
 * Paths never written to logs: credentials and anything that is a bearer
 * secret (API keys, tokens, media URLs).
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-sdk-token"]',
  'req.headers["x-public-key"]',
  'req.headers.cookie',
  '*.password',
  '*.apiKey',
  '*.token',
  '*.secret',
  '*.url',
];

export function createLogger(settings: LoggerSettings): Logger {
  const fd = settings.fd ?? 1;
  const tty = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  const pretty = settings.format === 'pretty' || (settings.format !== 'json' && tty === true);
  const options: LoggerOptions = {
    level: settings.level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    ...(settings.name ? { name: settings.name } : {}),
  };
  if (pretty) {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        // One line per entry, objects (an error's stack too) included: a terminal keeps its shape.
        options: {
          colorize: true,
          translateTime: 'SYS:HH:MM:ss.l',
          destination: fd,
          ignore: 'pid,hostname',
          singleLine: true,
        },
      },
    });
  }
  return pino(options, pino.destination({ fd, sync: false }));
}

/** A logger that writes nothing, for tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
