import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

export interface LoggerSettings {
  level: string;
  format?: 'auto' | 'pretty' | 'json';
  name?: string;
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
  const pretty =
    settings.format === 'pretty' || (settings.format !== 'json' && process.stdout.isTTY === true);
  const options: LoggerOptions = {
    level: settings.level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    ...(settings.name ? { name: settings.name } : {}),
  };
  if (pretty) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return pino(options);
}

/** A logger that writes nothing, for tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
