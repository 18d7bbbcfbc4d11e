/**
 * Real MCP clients for the server tests, in every combination the server
 * serves: the SDK v2 client in the 2025 era and pinned to 2026-07-28, and
 * the SDK v1 client (2025 era), each over stdio (spawning `main.ts`) or
 * over Streamable HTTP (to a running `serve --http`). One interface for the
 * three, so a test runs the same steps through each; every message the
 * client receives is also recorded, so a test can tell that no late result
 * arrived after a cancel.
 *
 * Also: a local upstream on 127.0.0.1 that serves made-up pages (a large
 * HTML page of many sections, trickled slowly on request) and records when
 * a client closed the connection before the end.
 */
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { childEnv, launch, MAIN } from "./process.ts";

/** Which client, in which era. */
export type ClientKind = "v2-2025" | "v2-2026" | "v1-2025";

/** Every client kind. */
export const CLIENT_KINDS: ClientKind[] = ["v2-2025", "v2-2026", "v1-2025"];

/** A progress notification as the client saw it. */
export interface ProgressSeen {
  progress: number;
  total?: number;
  message?: string;
  at: number;
}

/** A connected client of either SDK. */
export interface TestClient {
  kind: ClientKind;
  /** Calls a tool; `onprogress` makes the client send a progress token. */
  call(
    name: string,
    args: Record<string, unknown>,
    options?: { signal?: AbortSignal; onprogress?: (p: ProgressSeen) => void },
  ): Promise<{ content: { type: string; text?: string }[]; isError?: boolean }>;
  /** Lists the tools (what every era has; `ping` is not in 2026-07-28): the server is healthy. */
  healthy(): Promise<void>;
  /** Every message the client received, in order. */
  received: Record<string, unknown>[];
  /** The server's pid (stdio only). */
  pid?: number;
  close(): Promise<void>;
}

interface AnyTransport {
  onmessage?: (message: unknown, extra?: unknown) => void;
}

/** Records every incoming message, then hands it on to the client. */
function tap(transport: AnyTransport, into: Record<string, unknown>[]): void {
  const original = transport.onmessage;
  transport.onmessage = (message, extra) => {
    into.push(message as Record<string, unknown>);
    original?.call(transport, message, extra);
  };
}

/** Starts `main.ts` over stdio (with `flags` and `env`) or reaches `url` over HTTP. */
export async function connectClient(
  kind: ClientKind,
  where: { url: string } | { env?: Record<string, string>; flags?: string[] },
): Promise<TestClient> {
  const received: Record<string, unknown>[] = [];
  const info = { name: `test-${kind}`, version: "1" };
  const stdio = !("url" in where);
  const spawn = stdio ? launch(MAIN, [], where.flags ?? []) : undefined;
  const env = stdio ? childEnv(where.env ?? {}) : undefined;
  if (kind === "v1-2025") {
    const client = new ClientV1(info);
    const transport = spawn
      ? new StdioV1({ command: spawn.command, args: spawn.args, env, stderr: "ignore" })
      : new HttpV1(new URL((where as { url: string }).url));
    await client.connect(transport);
    tap(transport as unknown as AnyTransport, received);
    return {
      kind,
      received,
      pid: spawn ? (transport as StdioV1).pid ?? undefined : undefined,
      call: async (name, args, options = {}) =>
        await client.callTool({ name, arguments: args }, undefined, {
          signal: options.signal,
          timeout: 120_000,
          onprogress: options.onprogress &&
            ((p: { progress: number; total?: number; message?: string }) =>
              options.onprogress!({ ...p, at: performance.now() })),
        }) as never,
      healthy: async () => {
        if ((await client.listTools()).tools.length === 0) throw new Error("no tools listed");
      },
      close: () => client.close(),
    };
  }
  const client = kind === "v2-2026"
    ? new ClientV2(info, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
    : new ClientV2(info);
  const transport = spawn
    ? new StdioClientTransport({ command: spawn.command, args: spawn.args, env, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL((where as { url: string }).url));
  await client.connect(transport);
  tap(transport as unknown as AnyTransport, received);
  return {
    kind,
    received,
    pid: spawn ? (transport as StdioClientTransport).pid ?? undefined : undefined,
    call: async (name, args, options = {}) =>
      await client.callTool({ name, arguments: args }, {
        signal: options.signal,
        timeout: 120_000,
        onprogress: options.onprogress &&
          ((p: { progress: number; total?: number; message?: string }) =>
            options.onprogress!({ ...p, at: performance.now() })),
      }) as never,
    healthy: async () => {
      if ((await client.listTools()).tools.length === 0) throw new Error("no tools listed");
    },
    close: () => client.close(),
  };
}

/**
 * A made-up HTML page of `sections` sections (headings with ids,
 * paragraphs with links and inline code, a table every tenth section):
 * large enough, at a few thousand sections, that converting it takes
 * seconds.
 */
export function largeHtml(sections: number): string {
  const parts = ["<!doctype html><html><head><title>Big made-up page</title></head><body><main>"];
  for (let i = 0; i < sections; i++) {
    parts.push(
      `<h2 id="s${i}">Section ${i} on topic ${i % 97}</h2>`,
      `<p>Paragraph ${i} says something about <a href="/p/${i}">item ${i}</a>, with <code>code_${i}</code> ` +
        `and <em>emphasis</em> and more words to read, repeated: ${
          "lorem ipsum dolor ".repeat(12)
        }</p>`,
      `<ul><li>point ${i}.1</li><li>point ${i}.2 <strong>bold</strong></li></ul>`,
    );
    if (i % 10 === 0) {
      parts.push(
        `<table><tr><th>key</th><th>value</th></tr><tr><td>k${i}</td><td>v${i}</td></tr></table>`,
      );
    }
  }
  parts.push("</main></body></html>");
  return parts.join("\n");
}

/** What the upstream saw of one path. */
export interface UpstreamRecord {
  /** Requests for it. */
  hits: number;
  /** When a client closed the connection before the body ended (performance.now()). */
  closedAt?: number;
  /** When the last byte was sent. */
  finishedAt?: number;
}

/** A local upstream serving `/page?slow=ms&id=...`: the given HTML, trickled when slow. */
export class Upstream {
  readonly records = new Map<string, UpstreamRecord>();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #body: Uint8Array;

  constructor(html: string) {
    this.#body = new TextEncoder().encode(html);
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const url = new URL(req.url);
      const key = url.searchParams.get("id") ?? url.pathname;
      const record = this.records.get(key) ?? { hits: 0 };
      record.hits++;
      this.records.set(key, record);
      // Slow: the body in 40 pieces, one every `slow` ms.
      const slow = Number(url.searchParams.get("slow") ?? "0");
      const body = this.#body;
      const piece = Math.ceil(body.length / 40);
      let offset = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (offset >= body.length) {
            record.finishedAt = performance.now();
            controller.close();
            return;
          }
          if (slow > 0) await new Promise((r) => setTimeout(r, slow));
          controller.enqueue(body.subarray(offset, offset += slow > 0 ? piece : body.length));
        },
        cancel() {
          record.closedAt = performance.now();
        },
      });
      return new Response(stream, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-length": String(body.length),
        },
      });
    });
  }

  /** The upstream's base URL. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** The record of `id`, made on first use. */
  record(id: string): UpstreamRecord {
    return this.records.get(id) ?? { hits: 0 };
  }

  /** Stops serving. */
  async close(): Promise<void> {
    await this.#server.shutdown();
  }
}

/** CPU seconds (user + system, every thread) of a process, from /proc. */
export function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until the process has used no CPU (no 10 ms tick, every thread) for
 * 300 ms; the ms from the call to its last busy moment, or undefined if it
 * stayed busy for `limitMs`.
 */
export async function untilIdle(pid: number, limitMs = 20_000): Promise<number | undefined> {
  const start = performance.now();
  let last = cpuSeconds(pid);
  let lastBusyAt = start;
  while (performance.now() - start < limitMs) {
    await new Promise((r) => setTimeout(r, 25));
    const now = performance.now();
    const cpu = cpuSeconds(pid);
    if (cpu > last) lastBusyAt = now;
    last = cpu;
    if (now - lastBusyAt >= 300) return lastBusyAt - start;
  }
  return undefined;
}
