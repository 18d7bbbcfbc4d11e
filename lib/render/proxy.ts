/**
 * The render's forward proxy: the only way out of the browser. Each render
 * gets its own, on 127.0.0.1 at a free port, and its browser context is
 * created with it as the proxy for every URL, loopback included
 * (`<-loopback>` takes away Chromium's implicit loopback bypass). So every
 * connection the page causes reaches it: navigations and each hop of their
 * redirects, subresources, fetch/XHR, workers, popups, prefetches and
 * WebSockets (plain HTTP requests in absolute form; https, wss and ws as
 * CONNECT tunnels). For each one the proxy resolves the host, checks every
 * address by the rules of `lib/net` (`guard.ts`, {@link vet}) and connects
 * to exactly the checked addresses, so the browser never resolves a name
 * for a connection itself and a host cannot change its answer between check
 * and connection.
 *
 * A plain HTTP request is sent upstream with `Connection: close` (one
 * request per proxy connection, so a kept-alive connection cannot carry a
 * second request to another host), unless it asks for a protocol upgrade
 * (a WebSocket), which then stays a tunnel to the checked host.
 *
 * @module
 */
import { SourceError } from "../errors.ts";
import { type GuardOptions, vet } from "./guard.ts";

/** A running proxy of one render. */
export interface RenderProxy {
  /** Its address for the browser (`http://127.0.0.1:<port>`). */
  readonly server: string;
  /** Requests refused (URL or tunnel target, and why), in order, first 50. */
  readonly refused: { url: string; reason: string }[];
  /** Stops listening and closes every connection. */
  close(): void;
}

/** Largest request head accepted from the browser (bytes). */
const MAX_HEAD = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Starts a proxy that lets the browser reach only what `guard` allows. */
export function startRenderProxy(guard: GuardOptions): RenderProxy {
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  } catch (error) {
    const denied = error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.PermissionDenied;
    throw new SourceError(
      denied
        ? "the renderer's proxy could not listen on 127.0.0.1: this server's launch line denies loopback (--deny-net with 127.0.0.0/8; compiled binaries always do). Rendering needs the line of `deno task start:render` (or `install --render` from a checkout), which denies the other private networks but leaves 127.0.0.0/8 to the proxy"
        : `the renderer's proxy could not listen on 127.0.0.1: ${(error as Error).message}`,
      undefined,
      "render",
    );
  }
  const port = (listener.addr as Deno.NetAddr).port;
  const conns = new Set<Deno.Conn>();
  const refused: RenderProxy["refused"] = [];
  let closed = false;
  const refuse = (url: string, reason: string) => {
    if (refused.length < 50) refused.push({ url, reason });
  };
  (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        void serve(conn, guard, refuse, conns).finally(() => {
          conns.delete(conn);
          closeQuietly(conn);
        });
      }
    } catch { /* the listener was closed */ }
  })();
  return {
    server: `http://127.0.0.1:${port}`,
    refused,
    close() {
      if (closed) return;
      closed = true;
      try {
        listener.close();
      } catch { /* already closed */ }
      for (const conn of conns) closeQuietly(conn);
      conns.clear();
    },
  };
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** Reads up to the end of the request head; the bytes after it are `rest`. */
async function readHead(conn: Deno.Conn): Promise<{ head: string; rest: Uint8Array } | undefined> {
  let buffer = new Uint8Array(0);
  const chunk = new Uint8Array(16 * 1024);
  while (buffer.length < MAX_HEAD) {
    const n = await conn.read(chunk);
    if (n === null) return undefined;
    const next = new Uint8Array(buffer.length + n);
    next.set(buffer);
    next.set(chunk.subarray(0, n), buffer.length);
    buffer = next;
    const end = findHeadEnd(buffer);
    if (end >= 0) {
      return { head: decoder.decode(buffer.subarray(0, end)), rest: buffer.subarray(end + 4) };
    }
  }
  return undefined;
}

function findHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

async function answer(conn: Deno.Conn, status: string, text = ""): Promise<void> {
  const body = encoder.encode(text);
  await writeAll(
    conn,
    encoder.encode(
      `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
    ),
  ).catch(() => {});
  await writeAll(conn, body).catch(() => {});
}

/** Host and port of a CONNECT target (`host:port`, `[v6]:port`). */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = authority.match(/^(\[[0-9A-Fa-f:.]+\]|[^\s:\[\]\/@]+):(\d{1,5})$/);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  // The URL parser canonicalises the host as the guard expects (2130706433, IDN, case).
  try {
    const host = new URL(`http://${match[1]}/`).hostname;
    return { host, port };
  } catch {
    return undefined;
  }
}

async function connectTo(addresses: string[], port: number): Promise<Deno.Conn | undefined> {
  for (const address of addresses) {
    try {
      return await Deno.connect({ hostname: address, port });
    } catch { /* the next address */ }
  }
  return undefined;
}

/** Copies `from` to `to` until `from` ends or either fails. */
async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const chunk = new Uint8Array(32 * 1024);
  try {
    for (;;) {
      const n = await from.read(chunk);
      if (n === null) return;
      await writeAll(to, chunk.subarray(0, n));
    }
  } catch { /* closed */ }
}

/** Headers dropped on the way upstream: meant for the proxy, or per connection. */
const HOP_HEADERS = new Set(["proxy-connection", "proxy-authorization", "keep-alive"]);

async function serve(
  conn: Deno.Conn,
  guard: GuardOptions,
  refuse: (url: string, reason: string) => void,
  conns: Set<Deno.Conn>,
): Promise<void> {
  const read = await readHead(conn).catch(() => undefined);
  if (!read) return await answer(conn, "400 Bad Request", "malformed request");
  const [requestLine, ...headerLines] = read.head.split("\r\n");
  const [method, target, version] = requestLine.split(" ");
  if (!method || !target || !/^HTTP\/1\.[01]$/.test(version ?? "")) {
    return await answer(conn, "400 Bad Request", "malformed request line");
  }
  let host: string;
  let port: number;
  let url: URL | undefined;
  if (method === "CONNECT") {
    const authority = parseAuthority(target);
    if (!authority) return await answer(conn, "400 Bad Request", "malformed CONNECT target");
    ({ host, port } = authority);
  } else {
    try {
      url = new URL(target);
    } catch {
      return await answer(conn, "400 Bad Request", "a proxy request needs an absolute URL");
    }
    if (url.protocol !== "http:") {
      refuse(url.href, `the ${url.protocol} scheme is not fetched`);
      return await answer(conn, "403 Forbidden", `refused: the ${url.protocol} scheme`);
    }
    host = url.hostname;
    port = url.port ? Number(url.port) : 80;
  }
  const shown = url?.href ?? target;
  const verdict = await vet(host, port, guard);
  if ("reason" in verdict) {
    refuse(shown, verdict.reason);
    return await answer(
      conn,
      "403 Forbidden",
      `refused by the renderer's address guard: ${verdict.reason}`,
    );
  }
  const upstream = await connectTo(verdict.addresses, port);
  if (!upstream) return await answer(conn, "502 Bad Gateway", `could not connect to ${host}`);
  conns.add(upstream);
  try {
    if (method === "CONNECT") {
      await writeAll(conn, encoder.encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
    } else {
      const headers = headerLines.filter((line) => line.includes(":"));
      const upgrade = headers.some((line) => /^upgrade\s*:/i.test(line));
      const kept = headers.filter((line) => {
        const name = line.slice(0, line.indexOf(":")).trim().toLowerCase();
        return !HOP_HEADERS.has(name) && (upgrade || name !== "connection");
      });
      if (!upgrade) kept.push("Connection: close");
      const path = `${url!.pathname}${url!.search}`;
      await writeAll(
        upstream,
        encoder.encode(`${method} ${path} ${version}\r\n${kept.join("\r\n")}\r\n\r\n`),
      );
    }
    if (read.rest.length) await writeAll(upstream, read.rest);
    // Either side ending ends the exchange: one request, or one tunnel.
    await Promise.race([pump(conn, upstream), pump(upstream, conn)]);
  } catch {
    /* a side went away */
  } finally {
    conns.delete(upstream);
    closeQuietly(upstream);
  }
}
