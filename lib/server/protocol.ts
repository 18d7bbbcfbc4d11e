/**
 * Protocol facts shared by the transports: which versions each era speaks,
 * how a message claims the 2026-07-28 era, and the error shapes we build
 * ourselves.
 *
 * @module
 */
import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";

/** Revisions served with per-request metadata. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"];

/**
 * Revisions served with the `initialize` handshake, newest first. A client
 * asking for one of them gets it echoed; any other request gets the first.
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/**
 * Batches: refused in both eras, on both transports. Only the 2025-03-26
 * revision allowed JSON-RPC batches; 2025-06-18 removed them, and neither
 * 2025-11-25 nor 2026-07-28 has them. One message per stdio line and one per
 * HTTP POST, so a client of any era gets the same answer on either
 * transport: -32600 with this message (HTTP status 400).
 */
export const BATCH_REFUSAL =
  "Invalid Request: JSON-RPC batches are not supported; send one message per line (stdio) or per POST (HTTP)";

/** JSON-RPC error codes this server emits. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * Whether request params claim the 2026-07-28 era: only the
 * protocol-version key of `_meta` does (a 2025 request may carry `_meta`
 * with just a progress token).
 */
export function isModernClaim(params: unknown): boolean {
  if (params === null || typeof params !== "object") return false;
  const meta = (params as Record<string, unknown>)._meta;
  return meta !== null && typeof meta === "object" && !Array.isArray(meta) &&
    PROTOCOL_VERSION_META_KEY in meta;
}

/** The -32022 error for a version this server does not serve. */
export function unsupportedVersionError(requested: unknown): {
  code: number;
  message: string;
  data: { supported: string[]; requested: string };
} {
  return {
    code: ErrorCode.UnsupportedProtocolVersion,
    message: "Unsupported protocol version",
    data: {
      supported: [...MODERN_PROTOCOL_VERSIONS],
      requested: typeof requested === "string" ? requested : String(requested),
    },
  };
}

/**
 * A header value as the 2026-07-28 HTTP binding carries it: printable ASCII
 * as is, anything else as `=?base64?<UTF-8 in Base64>?=`.
 */
export function encodeHeaderValue(value: string): string {
  if (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value)) return value;
  const bytes = new TextEncoder().encode(value.toWellFormed());
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}

type Json = Record<string, unknown>;

/** A JSON-RPC error to send. */
export interface ErrorReply {
  /** The id it answers (null when none can be read). */
  id: string | number | null;
  /** JSON-RPC code. */
  code: number;
  /** What was wrong and what to do. */
  message: string;
}

/**
 * A request id this server can echo exactly: a string, or an integer that
 * survives JSON (1.5, 1e300 or a 30-digit number does not, and no client
 * could match the answer).
 */
export function isId(v: unknown): v is string | number {
  return typeof v === "string" || Number.isSafeInteger(v);
}

/** A progress token has the same shape as an id. */
function progressTokenProblem(params: unknown): string | undefined {
  if (params === null || typeof params !== "object") return undefined;
  const meta = (params as Json)._meta;
  if (meta === undefined) return undefined;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) {
    return 'Invalid params: "_meta" must be an object';
  }
  const token = (meta as Json).progressToken;
  if (token === undefined || isId(token)) return undefined;
  return 'Invalid params: "_meta.progressToken" must be a string or an integer';
}

/** What the shape check decided: serve, answer with an error, or drop without a word. */
export type Shape = { kind: "ok" } | { kind: "error"; reply: ErrorReply } | { kind: "drop" };

const OK: Shape = { kind: "ok" };
const DROP: Shape = { kind: "drop" };
const fail = (id: string | number | null, code: number, message: string): Shape => ({
  kind: "error",
  reply: { id, code, message },
});

/**
 * Checks the JSON-RPC shape. Every request gets exactly one answer;
 * notifications (a method, no id) and responses (a result or an error,
 * including an error response with id null) get none, even malformed: JSON-RPC
 * forbids answering them. Anything else is an invalid request answered with
 * id null. Batches are refused in both eras (see `protocol.ts`).
 */
export function shapeError(msg: unknown): Shape {
  if (Array.isArray(msg)) {
    return fail(null, -32600, BATCH_REFUSAL);
  }
  if (msg === null || typeof msg !== "object") {
    return fail(null, -32600, "Invalid Request: a message must be a JSON-RPC object");
  }
  const m = msg as Json;
  const hasId = "id" in m;
  if ("method" in m && !hasId) return OK_OR_DROP(m);
  if (!("method" in m) && ("result" in m || "error" in m)) {
    // A response: served when it answers something, never answered.
    return isId(m.id) && m.jsonrpc === "2.0" ? OK : DROP;
  }
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== "2.0") return fail(id, -32600, 'Invalid Request: "jsonrpc" must be "2.0"');
  if (!isId(m.id)) {
    return fail(null, -32600, 'Invalid Request: "id" must be a string or an integer');
  }
  if (!("method" in m)) {
    return fail(
      id,
      -32600,
      'Invalid Request: a message needs "method" (request or notification) or "result"/"error" (response)',
    );
  }
  if (typeof m.method !== "string" || m.method === "") {
    return fail(id, -32600, 'Invalid Request: "method" must be a string');
  }
  if (!paramsOk(m)) return fail(id, -32600, 'Invalid Request: "params" must be an object');
  const token = progressTokenProblem(m.params);
  if (token !== undefined) return fail(id, -32602, token);
  return OK;
}

function paramsOk(m: Json): boolean {
  return !("params" in m) || m.params === undefined ||
    (m.params !== null && typeof m.params === "object" && !Array.isArray(m.params));
}

/** A notification: served when well formed, dropped otherwise. */
function OK_OR_DROP(m: Json): Shape {
  const good = m.jsonrpc === "2.0" && typeof m.method === "string" && m.method !== "" &&
    paramsOk(m) && progressTokenProblem(m.params) === undefined;
  return good ? OK : DROP;
}
