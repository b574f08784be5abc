/**
 * Structured JSON logs, one object per line. Nothing secret is ever passed in: request logs carry
 * the path with the `key` query parameter redacted, never headers or bodies; keys appear only by
 * their public id (a hash prefix).
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Lets hot paths skip building fields that would be dropped. */
  enabled(level: LogLevel): boolean;
}

const RANK: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export function createLogger(level: LogLevel | "silent", write: (line: string) => void = (l) => process.stdout.write(l + "\n")): Logger {
  const min = RANK[level];
  const emit = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error"), enabled: (lvl) => RANK[lvl] >= min };
}

/** The request target for logs: `key` (and any token-like parameter) replaced by `[redacted]`. */
export function redactTarget(url: URL): string {
  if (!url.search) return url.pathname;
  const params = new URLSearchParams(url.search);
  for (const name of [...params.keys()]) {
    if (/^(key|token|secret|api[_-]?key)$/i.test(name)) params.set(name, "[redacted]");
  }
  return `${url.pathname}?${params.toString()}`;
}
