/**
 * The error a source throws for an expected failure (a record that does not
 * exist, an argument the API refuses, a reference it cannot resolve). Each
 * face maps it: an `isError` tool result on MCP and the CLI, a 4xx/5xx with
 * a JSON body on the HTTP API. Sources never build a face's error.
 *
 * @module
 */

/** What the upstream server said, when it explained itself. */
export interface SourceRemote {
  /** HTTP status. */
  status?: number;
  /** The response body (HTML or text). */
  body?: string;
  /** Its media type. */
  contentType?: string;
  /** The fence label when the body is not an error page (remote text quoted in an error). */
  label?: string;
}

/** An expected failure of a source; the message says what happened and what to try. */
export class SourceError extends Error {
  /** Upstream error details, if any. */
  readonly remote?: SourceRemote;
  /** Creates the error. */
  constructor(message: string, remote?: SourceRemote) {
    super(message);
    this.name = "SourceError";
    this.remote = remote;
  }
}

/**
 * Remote text made one line for quoting inside an error's fence: every line
 * break (CR, LF, NEL, U+2028, U+2029) and control character becomes a space.
 */
export function oneLine(text: string, max = 200): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, " ").replace(/ {2,}/g, " ")
    .trim().slice(0, max);
}
