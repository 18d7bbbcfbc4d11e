/**
 * MCP over stdio, negotiated per message.
 *
 * Each line is one JSON-RPC message. The era is decided for every message on
 * its own, so both may arrive on one connection:
 *
 * - a message whose `params._meta` carries
 *   `io.modelcontextprotocol/protocolVersion` is served under 2026-07-28
 *   rules by the same per-request handler that serves HTTP (so discovery,
 *   `resultType`, cache hints, -32022 for an unsupported version and -32602
 *   for a malformed envelope behave identically on both transports, on every
 *   request, whatever came before on the connection);
 * - anything else goes to one 2025-era server instance pinned to the
 *   connection (the `initialize` handshake, `ping`, `tools/*`).
 *
 * The pinned instance may come without its tools ({@link StdioOptions.complete}
 * adds them): it answers `initialize` and `ping` at once, and every other
 * message waits, in arrival order, until the tools are on it. Once the first
 * answer is out, {@link StdioOptions.onFirstAnswer} lets the server load
 * what it deferred.
 *
 * The reader is defensive: a line that is not JSON gets -32700, a message of
 * the wrong shape gets -32600 (batches included), and a line longer than the
 * limit is skipped without being buffered and answered with -32600 (carrying
 * the request's id when it can be read from the start of the line). In every
 * case the server keeps serving. stdout carries only protocol messages; logs
 * go to stderr.
 *
 * @module
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type McpHttpHandler,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  type Transport,
} from "@modelcontextprotocol/server";
import { log } from "../log.ts";
import { serving } from "./workers.ts";
import {
  encodeHeaderValue,
  type ErrorReply,
  isId,
  isModernClaim,
  MODERN_PROTOCOL_VERSIONS,
  shapeError,
  unsupportedVersionError,
} from "./protocol.ts";

/** Default limit of one stdio message, in bytes (the HTTP body limit too). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Options of {@link serveStdio}. */
export interface StdioOptions {
  /** Serves 2026-07-28 requests (the HTTP handler). */
  modern: McpHttpHandler;
  /** Makes the 2025-era instance, once per connection. */
  legacy: () => McpServer;
  /**
   * Completes the instance `legacy` made, once connected (registers its
   * tools); messages other than `initialize`, `ping` and responses wait for
   * it. By default the instance is complete as made.
   */
  complete?: (server: McpServer) => Promise<void>;
  /** Called once, when the first answer has been written. */
  onFirstAnswer?: () => void;
  /** Input bytes; `Deno.stdin.readable` by default. */
  input?: ReadableStream<Uint8Array>;
  /** Writes one line; stdout by default. */
  write?: (line: string) => Promise<void>;
  /** Largest message in bytes. */
  maxMessageBytes?: number;
  /** How long to wait for in-flight requests after input ends. */
  drainTimeoutMs?: number;
}

type Json = Record<string, unknown>;

/** 2025-era requests an instance answers before it is complete. */
const BEFORE_COMPLETE: ReadonlySet<unknown> = new Set(["initialize", "ping"]);

function errorLine(reply: ErrorReply): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: reply.id,
    error: { code: reply.code, message: reply.message },
  });
}

/**
 * Reads the top-level `"id"` of a JSON object from the start of a text, for
 * answering a message too large to parse. Returns undefined if the id is not
 * in the prefix.
 */
export function peekId(prefix: string): string | number | undefined {
  let depth = 0;
  let i = 0;
  const n = prefix.length;
  const readString = (): string | undefined => {
    let out = "";
    i++; // opening quote
    while (i < n) {
      const c = prefix[i];
      if (c === "\\") {
        out += prefix.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        try {
          return JSON.parse(`"${out}"`);
        } catch {
          return undefined;
        }
      }
      out += c;
      i++;
    }
    return undefined;
  };
  let expectKey = false;
  while (i < n) {
    const c = prefix[i];
    if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
      i++;
    } else if (c === "}" || c === "]") {
      depth--;
      i++;
    } else if (c === ",") {
      expectKey = depth === 1;
      i++;
    } else if (c === '"') {
      const wasKey = expectKey && depth === 1;
      const s = readString();
      if (s === undefined) return undefined;
      expectKey = false;
      if (wasKey && s === "id") {
        while (i < n && /[\s:]/.test(prefix[i])) i++;
        if (prefix[i] === '"') {
          const v = readString();
          return v;
        }
        const num = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(prefix.slice(i));
        return num ? Number(num[0]) : undefined;
      }
    } else i++;
  }
  return undefined;
}

/** A transport for the pinned 2025-era instance: writes go to stdout. */
class LegacyChannel implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly pending = new Set<string | number>();
  #drained?: () => void;

  constructor(private readonly write: (line: string) => Promise<void>) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) this.pending.delete(message.id);
      if (this.pending.size === 0) this.#drained?.();
    }
    return this.write(JSON.stringify(message));
  }

  deliver(message: JSONRPCMessage): void {
    const m = message as Json;
    if (typeof m.method === "string" && isId(m.id)) this.pending.add(m.id);
    this.onmessage?.(message);
    if (m.method === "notifications/cancelled") {
      // A cancelled request gets no answer: it no longer holds the drain open.
      const target = (m.params as Json | undefined)?.requestId;
      if (isId(target) && this.pending.delete(target) && this.pending.size === 0) {
        this.#drained?.();
      }
    }
  }

  drained(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#drained = resolve));
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

function stdoutWriter(): (line: string) => Promise<void> {
  const writer = Deno.stdout.writable.getWriter();
  const encoder = new TextEncoder();
  return (line) => writer.write(encoder.encode(line + "\n"));
}

/** Parses an SSE body into the data of its message events. */
async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let data: string[] = [];
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (line === "") {
          if (data.length > 0) yield data.join("\n");
          data = [];
        } else if (line.startsWith("data:")) {
          data.push(line.slice(5).replace(/^ /, ""));
        }
      }
    }
    if (data.length > 0) yield data.join("\n");
  } finally {
    reader.releaseLock();
  }
}

/** Serves MCP on stdio until the input ends and in-flight work settles. */
export async function serveStdio(options: StdioOptions): Promise<void> {
  serving();
  const max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const rawWrite = options.write ?? stdoutWriter();
  // One write at a time, so lines never interleave.
  let queue = Promise.resolve();
  let answered = false;
  const write = (line: string): Promise<void> => {
    const next = queue.then(() => rawWrite(line));
    if (!answered) {
      answered = true;
      next.then(() => options.onFirstAnswer?.(), () => {});
    }
    queue = next.catch((error) => {
      // The client went away: one line, not an error with a stack.
      const gone = error instanceof Deno.errors.BrokenPipe ||
        error instanceof Deno.errors.ConnectionReset;
      log(gone ? "info" : "warn", `stdout write failed: ${(error as Error).message ?? error}`);
    });
    return next;
  };

  const inflight = new Map<string | number, AbortController>();
  const tasks = new Set<Promise<void>>();
  type Legacy = { server: McpServer; channel: LegacyChannel; complete(): Promise<void> };
  let legacy: Legacy | undefined;
  let legacyReady: Promise<Legacy> | undefined;

  const legacyInstance = () => {
    legacyReady ??= (async () => {
      const channel = new LegacyChannel(write);
      const server = options.legacy();
      await server.connect(channel);
      let completed: Promise<void> | undefined;
      const complete = () => completed ??= options.complete?.(server) ?? Promise.resolve();
      legacy = { server, channel, complete };
      return legacy;
    })();
    return legacyReady;
  };

  const track = (task: Promise<void>) => {
    const t = task.catch((error) => log("error", "message handling failed", error))
      .finally(() => tasks.delete(t));
    tasks.add(t);
  };

  const serveModern = async (msg: Json) => {
    const params = msg.params as Json;
    const meta = params._meta as Json;
    const version = meta[PROTOCOL_VERSION_META_KEY];
    const id = isId(msg.id) ? msg.id : undefined;
    if (msg.method === "notifications/cancelled") {
      const target = (params as Json).requestId;
      if (isId(target)) inflight.get(target)?.abort();
      return;
    }
    if (typeof version !== "string" || !MODERN_PROTOCOL_VERSIONS.includes(version)) {
      if (id !== undefined) {
        await write(
          JSON.stringify({ jsonrpc: "2.0", id, error: unsupportedVersionError(version) }),
        );
      }
      return;
    }
    const headers = new Headers({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
      "mcp-method": encodeHeaderValue(msg.method as string),
    });
    const name = typeof params.name === "string"
      ? params.name
      : typeof params.uri === "string"
      ? params.uri
      : undefined;
    if (name !== undefined) headers.set("mcp-name", encodeHeaderValue(name));
    const abort = new AbortController();
    if (id !== undefined) inflight.set(id, abort);
    try {
      const response = await options.modern.fetch(
        new Request("http://stdio.invalid/mcp", {
          method: "POST",
          headers,
          body: "{}",
          signal: abort.signal,
        }),
        { parsedBody: msg },
      );
      const type = response.headers.get("content-type") ?? "";
      if (!response.body || response.status === 202 || response.status === 499) {
        await response.body?.cancel();
        return;
      }
      if (type.includes("text/event-stream")) {
        for await (const data of sseMessages(response.body)) {
          await write(JSON.stringify(JSON.parse(data)));
        }
        return;
      }
      const text = await response.text();
      try {
        await write(JSON.stringify(JSON.parse(text)));
      } catch {
        if (id !== undefined) {
          await write(errorLine({
            id,
            code: -32603,
            message: `Internal error: unexpected reply (HTTP ${response.status})`,
          }));
        }
      }
    } finally {
      if (id !== undefined) inflight.delete(id);
    }
  };

  const handleLine = (line: string) => {
    if (line.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      track(write(errorLine({
        id: null,
        code: -32700,
        message: "Parse error: the line is not valid JSON; send one JSON-RPC message per line",
      })));
      return;
    }
    const shape = shapeError(msg);
    if (shape.kind === "error") {
      track(write(errorLine(shape.reply)));
      return;
    }
    if (shape.kind === "drop") {
      log("debug", "dropped a malformed notification or response on stdio");
      return;
    }
    const m = msg as Json;
    if (typeof m.method === "string" && isModernClaim(m.params)) {
      track(serveModern(m));
      return;
    }
    if (typeof m.method !== "string" && !legacy) return; // stray response
    track(
      legacyInstance().then(async ({ channel, complete }) => {
        if (typeof m.method === "string" && !BEFORE_COMPLETE.has(m.method)) await complete();
        channel.deliver(m as JSONRPCMessage);
      }),
    );
  };

  const input = options.input ?? Deno.stdin.readable;
  const reader = input.getReader();
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  let skippedPrefix = "";
  const accumulate = (chunk: Uint8Array) => {
    if (skipping || chunk.length === 0) return;
    parts.push(chunk);
    size += chunk.length;
    if (size > max) {
      // Too long: keep only the start (to find the id), drop the rest as it comes.
      skippedPrefix = decoder.decode(concat(parts, size).subarray(0, 65536));
      skipping = true;
      parts = [];
      size = 0;
    }
  };
  const endLine = () => {
    if (skipping) {
      track(write(errorLine({
        id: peekId(skippedPrefix) ?? null,
        code: -32600,
        message: `Invalid Request: message exceeds ${max} bytes and was skipped`,
      })));
      log("warn", `skipped a stdio message over ${max} bytes`);
      skipping = false;
      skippedPrefix = "";
    } else if (size > 0) {
      handleLine(decoder.decode(concat(parts, size)).replace(/\r$/, ""));
    }
    parts = [];
    size = 0;
  };
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      let start = 0;
      for (let nl = value.indexOf(10); nl >= 0; nl = value.indexOf(10, start)) {
        accumulate(value.subarray(start, nl));
        endLine();
        start = nl + 1;
      }
      accumulate(value.subarray(start));
    }
    endLine();
  } catch (error) {
    log("warn", "stdin read failed", error);
  }

  // Input ended: let in-flight work finish (bounded), then close.
  const deadline = new Promise<void>((resolve) => {
    const t = setTimeout(resolve, options.drainTimeoutMs ?? 120_000);
    Deno.unrefTimer(t);
  });
  const drain = async () => {
    while (tasks.size > 0) await Promise.allSettled([...tasks]);
    if (legacy) await legacy.channel.drained();
  };
  await Promise.race([drain(), deadline]);
  await queue;
  if (legacy) await legacy.server.close().catch(() => {});
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
