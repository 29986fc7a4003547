/**
 * A small structured logger: one JSON object per line on stderr, so that log collectors in a
 * cluster can parse it and `npm start` output stays greppable. Levels below the configured one
 * are dropped.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  base?: LogFields;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const minimum = LEVEL_RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const base = options.base ?? {};

  const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (LEVEL_RANK[level] < minimum) return;
    const record: LogFields = { time: new Date().toISOString(), level, msg: message, ...base, ...fields };
    if (record.err instanceof Error) {
      record.err = { message: record.err.message, stack: record.err.stack };
    }
    write(JSON.stringify(record));
  };

  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
  };
}
