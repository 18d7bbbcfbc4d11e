/**
 * Errors of the network layer. Each carries a `kind` callers can branch on
 * and a message written for the agent: what happened and what to try.
 *
 * @module
 */

/** What went wrong. */
export type NetErrorKind =
  | "scheme"
  | "credentials"
  | "invalid_url"
  | "invalid_header"
  | "blocked_address"
  | "dns"
  | "too_large"
  | "timeout"
  | "redirect"
  | "transport"
  | "pin_mismatch"
  | "replay_missing"
  | "status";

/** An upstream error response, kept so the caller can quote it. */
export interface RemoteResponse {
  /** HTTP status. */
  status: number;
  /** Body text (already capped by the fetch). */
  body?: string;
  /** Media type. */
  contentType?: string;
}

/** A failed request. */
export class NetError extends Error {
  /** Category of failure. */
  readonly kind: NetErrorKind;
  /** The URL involved (the hop that failed). */
  readonly url?: string;
  /** The upstream answer, for `status` errors. */
  readonly remote?: RemoteResponse;
  /** For `too_large`: the cap that was exceeded, in bytes. */
  readonly limit?: number;
  /** For `too_large`: the body's decoded size in bytes, when known before reading it. */
  readonly size?: number;

  /** Creates the error. */
  constructor(
    kind: NetErrorKind,
    message: string,
    url?: string,
    options?: ErrorOptions & { remote?: RemoteResponse; limit?: number; size?: number },
  ) {
    super(message, options);
    this.name = "NetError";
    this.kind = kind;
    this.url = url;
    this.remote = options?.remote;
    this.limit = options?.limit;
    this.size = options?.size;
  }
}
