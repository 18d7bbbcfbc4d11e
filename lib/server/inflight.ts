/**
 * Cancellation over HTTP, and one rule for batches.
 *
 * 2025-era HTTP is served statelessly: every POST gets its own SDK
 * instance, so a `notifications/cancelled` POST reaches an instance that
 * never saw the request it names, and the call it means would run on. This
 * wrapper keeps, for each request in flight, an abort controller under the
 * request's id **and its client's scope**; a cancel notification aborts only
 * the requests of its own scope. Aborting ends the request the way a closed
 * connection does: the SDK closes that request's instance, which aborts the
 * tool's signal, and the signal stops the download, the worker converting
 * the page and any render. A cancelled request gets no result.
 *
 * The scope of a client, with no session to go by, is what the server can
 * tell clients apart with: the authenticated principal (an OAuth subject,
 * the token's owner, or the local user), the bearer token (a digest of it), the
 * `Mcp-Session-Id` header when a client sends one, and the peer's IP
 * address. Clients that share all three (local clients without a token, for
 * instance) share a scope.
 *
 * Both eras go through the same map, so a 2026-07-28 client may cancel with
 * the notification too (closing its stream also works).
 *
 * Every POST body passes the message rules stdio applies (`shapeError`
 * in `protocol.ts`): batches and invalid requests get 400 with -32600 (or
 * -32602 for a malformed progress token), a malformed notification or
 * response 202 and no answer.
 *
 * @module
 */
import type { McpHandlerRequestOptions, McpHttpHandler } from "@modelcontextprotocol/server";
import { currentPrincipal } from "../principal.ts";
import { ErrorCode, isId, shapeError } from "./protocol.ts";

/** The peer address of each request, recorded by the HTTP server. */
const peers = new WeakMap<Request, string>();

/** Records the peer address of `request` (called by the HTTP server). */
export function rememberPeer(request: Request, address: string): void {
  peers.set(request, address);
}

type Json = Record<string, unknown>;

function idKey(id: string | number): string {
  return `${typeof id}:${id}`;
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return Array.from(bytes.subarray(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function scopeOf(request: Request): Promise<string> {
  const auth = request.headers.get("authorization");
  const principal = currentPrincipal();
  return [
    `${principal.kind}:${principal.id}`,
    auth === null ? "" : await digest(auth),
    request.headers.get("mcp-session-id") ?? "",
    peers.get(request) ?? "",
  ].join("|");
}

function rpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The body of a POST as text, or undefined when it exceeds `max` bytes. */
async function readCapped(request: Request, max: number): Promise<string | undefined> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  return new TextDecoder().decode(all);
}

/** The requests in flight, by scope and id. */
export class InflightRequests {
  readonly #map = new Map<string, Set<AbortController>>();

  /** Registers a request; the returned function forgets it. */
  add(scope: string, id: string | number, controller: AbortController): () => void {
    const key = `${scope}#${idKey(id)}`;
    let set = this.#map.get(key);
    if (!set) this.#map.set(key, set = new Set());
    set.add(controller);
    return () => {
      set!.delete(controller);
      if (set!.size === 0 && this.#map.get(key) === set) this.#map.delete(key);
    };
  }

  /** Aborts the requests of `scope` with `id`; how many there were. */
  cancel(scope: string, id: string | number, reason: string): number {
    const set = this.#map.get(`${scope}#${idKey(id)}`);
    if (!set) return 0;
    for (const c of set) c.abort(new DOMException(reason, "AbortError"));
    return set.size;
  }

  /** Requests in flight. */
  get size(): number {
    let n = 0;
    for (const s of this.#map.values()) n += s.size;
    return n;
  }
}

/**
 * Wraps the MCP handler so cancel notifications reach the calls they name
 * (scoped per client) and batches are refused. `maxBytes` is the body limit
 * (the SDK's own answer, 413, is kept for larger bodies).
 */
export function cancellable(
  handler: McpHttpHandler,
  maxBytes: number,
  inflight: InflightRequests = new InflightRequests(),
): McpHttpHandler {
  const fetch = async (request: Request, options?: McpHandlerRequestOptions) => {
    const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    // Not JSON (415), or already parsed: the SDK's own answers.
    if (
      request.method.toUpperCase() !== "POST" || options?.parsedBody !== undefined ||
      type !== "application/json"
    ) {
      return await handler.fetch(request, options);
    }
    const length = Number(request.headers.get("content-length") ?? "");
    if (Number.isFinite(length) && length > maxBytes) return await handler.fetch(request, options);
    let text: string | undefined;
    try {
      text = await readCapped(request, maxBytes);
    } catch {
      return rpcError(400, ErrorCode.ParseError, "Parse error: the request body could not be read");
    }
    if (text === undefined) {
      return rpcError(
        413,
        ErrorCode.InvalidRequest,
        `Payload too large: a message may have at most ${maxBytes} bytes`,
      );
    }
    let body: unknown;
    let parsed = false;
    try {
      body = text === "" ? undefined : JSON.parse(text);
      parsed = body !== undefined;
    } catch { /* the SDK answers -32700 */ }
    if (parsed) {
      // The same message rules as stdio: one answer per request, none otherwise.
      const shape = shapeError(body);
      if (shape.kind === "error") {
        return rpcError(400, shape.reply.code, shape.reply.message, shape.reply.id);
      }
      if (shape.kind === "drop") return new Response(null, { status: 202 });
    }
    const m = (parsed && body !== null && typeof body === "object" ? body : {}) as Json;
    const scope = await scopeOf(request);
    if (m.method === "notifications/cancelled" && !("id" in m)) {
      const target = (m.params as Json | undefined)?.requestId;
      const reason = (m.params as Json | undefined)?.reason;
      if (isId(target)) {
        inflight.cancel(scope, target, typeof reason === "string" ? reason : "cancelled");
      }
    }
    const controller = new AbortController();
    const forget = typeof m.method === "string" && isId(m.id)
      ? inflight.add(scope, m.id, controller)
      : () => {};
    const forward = new Request(request.url, {
      method: "POST",
      headers: request.headers,
      body: parsed ? undefined : text,
      signal: AbortSignal.any([request.signal, controller.signal]),
    });
    let response: Response;
    try {
      response = await handler.fetch(forward, { ...options, ...(parsed && { parsedBody: body }) });
    } catch (error) {
      forget();
      throw error;
    }
    if (!response.body) {
      forget();
      return response;
    }
    // Forgotten once the answer is sent or the client goes. A client that goes away while the
    // answer streams cancels the body; that aborts the call too (the SDK's streamed answer
    // alone would let it run on).
    controller.signal.addEventListener("abort", forget, { once: true });
    request.signal.addEventListener("abort", forget, { once: true });
    const reader = response.body.getReader();
    const relay = new ReadableStream<Uint8Array>({
      async pull(out) {
        try {
          const { value, done } = await reader.read();
          if (done) {
            forget();
            out.close();
          } else out.enqueue(value);
        } catch (error) {
          forget();
          out.error(error);
        }
      },
      async cancel(reason) {
        controller.abort(new DOMException("the client closed the connection", "AbortError"));
        await reader.cancel(reason).catch(() => {});
      },
    });
    return new Response(relay, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return { ...handler, fetch, close: () => handler.close(), notify: handler.notify };
}
