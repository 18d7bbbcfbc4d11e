/**
 * The guarded network as a standard `fetch`, for libraries that take one
 * (youtubei.js, jose's remote key sets): every request they make goes
 * through {@link Net} with its address checks, limits and retries, none
 * around it.
 *
 * @module
 */
import type { FetchOptions, FetchResult } from "./fetch.ts";

/** Headers the network layer sets itself (its User-Agent, encodings, framing). */
const OWNED = new Set(["user-agent", "accept-encoding", "content-length", "host", "connection"]);

/** How one request is sent: `Net.fetch`, or a caller's wrapper of it. */
export type Send = (
  url: string,
  init: Pick<FetchOptions, "method" | "headers" | "body" | "signal">,
) => Promise<FetchResult>;

/** A `fetch` whose every request is sent by `send`; `signal` also aborts each one. */
export function fetchThrough(send: Send, signal?: AbortSignal): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const headers = new Headers();
    request.headers.forEach((value, key) => {
      if (!OWNED.has(key.toLowerCase())) headers.set(key, value);
    });
    const method = request.method === "POST" ? "POST" : request.method === "HEAD" ? "HEAD" : "GET";
    const body = method === "POST" ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const result = await send(request.url, {
      method,
      headers,
      body,
      signal: signal ?? init?.signal ?? undefined,
    });
    return new Response(method === "HEAD" ? null : result.bytes as BodyInit, {
      status: result.status,
      headers: result.headers,
    });
  }) as typeof fetch;
}
