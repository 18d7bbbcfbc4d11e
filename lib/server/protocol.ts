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
