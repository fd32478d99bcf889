import { pino, type Logger } from 'pino';

/** Logs go to stderr so that stdout carries only the report (`nicdoctor scan --format json | jq`). */
export function createLogger(level: string = process.env.NICDOCTOR_LOG_LEVEL ?? 'warn'): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 2, sync: true }));
}

/** A logger that drops everything, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
