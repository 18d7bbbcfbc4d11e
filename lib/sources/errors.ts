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
