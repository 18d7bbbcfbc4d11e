/**
 * The error vocabulary every layer throws in and every face maps once: a
 * {@link ContentError} for content that cannot become (or be read from) a
 * Document, a {@link SourceError} for an upstream service that failed or
 * refused, and a {@link ToolError} for an argument its caller can fix.
 * Each carries a `kind`, and, when the upstream server explained itself,
 * its {@link SourceRemote} details.
 *
 * The faces map them once each: MCP and the CLI to an `isError` tool result
 * whose text says what to try next (`lib/tools/failure.ts`), the HTTP API to
 * a status code and a JSON body (`lib/server/rest.ts`). No layer below the
 * faces builds a face's error, and no face recognises an error by its name.
 *
 * The network's own failures are `NetError`s (`lib/net/errors.ts`),
 * with kinds of their own; a request the caller got wrong is a
 * `RequestError` (`lib/views/errors.ts`).
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

/**
 * Why content could not be read:
 *
 * - `unsupported_type`: a media type that cannot be read as text (an image,
 *   an archive);
 * - `unreadable`: content that does not parse as what it claims to be
 *   (malformed JSON, XML or PDF, a header that breaks its format), or that
 *   a source cannot serve (a binary file, a withheld post, an unknown wiki);
 * - `no_text`: a page with no text at all (an image, a form, empty);
 * - `javascript_shell`: a page that builds its text with JavaScript;
 * - `too_slow`: a page that did not convert within the conversion deadline.
 */
export type ContentErrorKind =
  | "unsupported_type"
  | "unreadable"
  | "no_text"
  | "javascript_shell"
  | "too_slow";

/** Options of a {@link ContentError}. */
export interface ContentErrorOptions {
  /** Why; `unreadable` by default. */
  kind?: ContentErrorKind;
  /** Upstream details, quoted (fenced) by the faces that show them. */
  remote?: SourceRemote;
}

/** Content that cannot become a Document, or be read from one; the message says what to try. */
export class ContentError extends Error {
  /** Why the content could not be read. */
  readonly kind: ContentErrorKind;
  /** Upstream error details, if any. */
  readonly remote?: SourceRemote;

  /** Creates the error; the message is shown to the caller. */
  constructor(message: string, options: ContentErrorOptions = {}) {
    super(message);
    this.name = "ContentError";
    this.kind = options.kind ?? "unreadable";
    this.remote = options.remote;
  }
}

/**
 * What failed: `upstream` (a service answered with an error or refused the
 * request: the remote status says which), `render` (the headless browser
 * could not render the page) or `bad_input` (the caller's argument: a
 * {@link ToolError}).
 */
export type SourceErrorKind = "upstream" | "render" | "bad_input";

/**
 * An expected failure of a source (a record that does not exist, an
 * argument the API refuses, a reference it cannot resolve); the message says
 * what happened and what to try.
 */
export class SourceError extends Error {
  /** Upstream error details, if any. */
  readonly remote?: SourceRemote;
  /** What failed. */
  readonly kind: SourceErrorKind;

  /** Creates the error. */
  constructor(message: string, remote?: SourceRemote, kind: SourceErrorKind = "upstream") {
    super(message);
    this.name = "SourceError";
    this.remote = remote;
    this.kind = kind;
  }
}

/**
 * A request its caller can fix (an argument a tool or a source refuses, a
 * combination the tool does not take); the message says what was wrong and
 * what to send instead. Kind `bad_input`.
 */
export class ToolError extends SourceError {
  /** Creates the error. */
  constructor(message: string, remote?: SourceRemote) {
    super(message, remote, "bad_input");
    this.name = "ToolError";
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
