/**
 * Logging to stderr only. stdout belongs to the MCP protocol on stdio, so
 * nothing in the product writes to it except the stdio transport.
 *
 * Level comes from `PARKOUR_LOG` (`debug`, `info`, `warn`, `error`, `off`;
 * default `info`).
 *
 * @module
 */

/** Severity of a log line. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel | "off", number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
  off: 100,
};

let threshold: number = ORDER.info;
const encoder = new TextEncoder();

/** Sets the minimum level that is written; unknown names are ignored. */
export function setLogLevel(level: string | undefined): void {
  if (level && level in ORDER) threshold = ORDER[level as LogLevel];
}

/** Writes one line to stderr if `level` passes the threshold. */
export function log(level: LogLevel, message: string, detail?: unknown): void {
  if (ORDER[level] < threshold) return;
  let line = `[parkour] ${level}: ${message}`;
  if (detail !== undefined) {
    line += " " + (detail instanceof Error ? (detail.stack ?? detail.message) : String(detail));
  }
  try {
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  } catch {
    // stderr closed: nothing sensible left to do.
  }
}
