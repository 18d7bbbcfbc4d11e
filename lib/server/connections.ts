/**
 * The connection guard in front of the HTTP service: a header-read timeout,
 * an idle timeout between requests, a whole-request timeout and a cap on
 * open connections, none of which `Deno.serve` has (measured on Deno 2.9.6:
 * 300 connections sending one header line a second stayed open for as long
 * as they kept sending, 1,000 idle connections were kept indefinitely).
 *
 * It listens on the service's address with `Deno.listen` and relays each
 * connection, byte for byte, to a `Deno.serve` listening on 127.0.0.1 on a
 * free port. The bytes are relayed unchanged; the guard only watches the
 * HTTP/1.1 framing of both directions (request heads and bodies by
 * `Content-Length` or chunked coding, response heads and bodies likewise),
 * so that it knows when a request head started, when it ended, and when the
 * connection is idle between requests:
 *
 * - a request head must arrive whole within `headersTimeoutMs` of its first
 *   byte (for a new connection, of the accept): else 408 and close;
 * - a kept-alive connection with no request in flight is closed after
 *   `idleTimeoutMs`;
 * - a request (head and body) must arrive whole within `requestTimeoutMs`;
 * - a head over `maxHeaderBytes` gets 431 and close;
 * - at most `maxConnections` connections are served; past that, a small
 *   reserve (`probeConnections`) is kept for health probes: a
 *   `GET /healthz` (or HEAD) is relayed and the connection closed after its
 *   answer, anything else gets 503 with `Retry-After` and is closed; past
 *   the reserve too, connections are closed at once.
 *
 * A request in flight (its response not finished) is never timed out here:
 * the tools have their own deadlines, and long answers stream. When the
 * client closes its side, the inner server sees the same (so cancellation
 * on disconnect works as without the guard). After a 101 (an upgrade the
 * service does not offer today) the bytes are relayed without watching.
 *
 * What it does not cover: the inner port is reachable from this machine
 * (the same gates apply there), and the inner server sees the guard, not the
 * client, as the peer address.
 *
 * @module
 */
import { log } from "../log.ts";

/** Limits of {@link guardConnections}. */
export interface ConnectionLimits {
  /** Longest wait for a request head to arrive whole, from its first byte (a new connection: from the accept). */
  headersTimeoutMs: number;
  /** Longest wait between requests on a kept-alive connection. */
  idleTimeoutMs: number;
  /** Longest wait for a whole request (head and body) from its first byte. */
  requestTimeoutMs: number;
  /** Most connections served at once. */
  maxConnections: number;
  /** Connections beyond the cap that may still ask `/healthz`. */
  probeConnections: number;
  /** Largest request head. */
  maxHeaderBytes: number;
}

/** The defaults: 10 s for a head, 30 s idle, 120 s for a request, 256 connections (+64 probes, whose head is due within 1 s), 64 KiB heads. */
export const DEFAULT_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  requestTimeoutMs: 120_000,
  maxConnections: 256,
  probeConnections: 64,
  maxHeaderBytes: 64 * 1024,
};

/** Settings of {@link guardConnections}. */
export interface GuardOptions {
  /** Address to listen on. */
  hostname: string;
  /** Port (0 for any free port). */
  port: number;
  /** The inner server's port on 127.0.0.1. */
  innerPort: number;
  /** Limits (defaults: {@link DEFAULT_LIMITS}). */
  limits?: Partial<ConnectionLimits>;
}

/** A running guard. */
export interface ConnectionGuard {
  /** The address it listens on. */
  address: { hostname: string; port: number };
  /** Stops accepting; open connections are left to finish (see {@link ConnectionGuard.closeAll}). */
  stopAccepting(): void;
  /** Closes the connections with no request in flight (the others close after their answer). */
  closeIdle(): void;
  /** Closes every open connection. */
  closeAll(): void;
  /** Resolves when the accept loop has ended. */
  finished: Promise<void>;
}

const CRLF2 = [13, 10, 13, 10];
/** The most a connection past the cap may take to send its head. */
const PROBE_HEAD_MS = 1000;
/** How long a refused connection's remaining input is read and dropped before it is closed. */
const LINGER_MS = 1000;
const encoder = new TextEncoder();
const decoder = new TextDecoder("latin1");

/** Where in a message a framer is. */
type Phase = "head" | "body" | "chunk-size" | "chunk-data" | "chunk-crlf" | "trailer" | "tunnel";

/** How a message's body is framed; `interim` is a 1xx answer (no body, the final one follows). */
type BodyFraming = "none" | "length" | "chunked" | "close" | "tunnel" | "interim";

/** Parsed essentials of a head. */
interface Head {
  /** Request: method and target; response: the status. */
  startLine: string[];
  /** Header fields, names lowercased (repeated ones joined with ","). */
  fields: Map<string, string>;
}

function parseHead(bytes: Uint8Array): Head {
  const lines = decoder.decode(bytes).split("\r\n");
  const startLine = (lines.shift() ?? "").split(" ");
  const fields = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    fields.set(name, fields.has(name) ? `${fields.get(name)},${value}` : value);
  }
  return { startLine, fields };
}

function isChunked(fields: Map<string, string>): boolean {
  return /(?:^|,)\s*chunked\s*$/i.test(fields.get("transfer-encoding") ?? "");
}

/**
 * Watches one direction's HTTP/1.1 framing: tells when a message head
 * begins and ends and when a message ends. It never changes the bytes.
 */
class Framer {
  phase: Phase = "head";
  /** The head's bytes seen so far (copies: the caller reuses its buffer). */
  #headChunks: Uint8Array[] = [];
  #headLength = 0;
  #match = 0;
  #remaining = 0;
  #line = "";
  constructor(
    readonly events: {
      /** The first byte of a head. */
      headStart(): void;
      /** A whole head; returns how its body is framed (`interim`: none, and no message end). */
      headEnd(head: Head): BodyFraming;
      /** The whole message (head and body). */
      messageEnd(): void;
    },
    readonly maxHead: number,
  ) {}

  /** Feeds bytes; false when the head grew past the limit. */
  feed(bytes: Uint8Array): boolean {
    let i = 0;
    while (i < bytes.length) {
      switch (this.phase) {
        case "tunnel":
          return true;
        case "head": {
          if (this.#headLength === 0) {
            // Blank lines before a request line are allowed (RFC 9112, 2.2).
            while (i < bytes.length && (bytes[i] === 13 || bytes[i] === 10)) i++;
            if (i === bytes.length) break;
            this.events.headStart();
          }
          // Scan for the blank line ending the head, carrying a partial match across chunks.
          const from = i;
          let match = this.#match;
          while (i < bytes.length && match < 4) {
            const b = bytes[i++];
            if (b === CRLF2[match]) match++;
            else match = b === 13 ? 1 : 0;
          }
          this.#match = match;
          this.#headChunks.push(bytes.slice(from, i));
          this.#headLength += i - from;
          if (this.#headLength > this.maxHead) return false;
          if (match === 4) {
            const whole = concat(this.#headChunks, this.#headLength);
            this.#headChunks = [];
            this.#headLength = 0;
            this.#match = 0;
            const head = parseHead(whole.subarray(0, whole.length - 4));
            this.#begin(this.events.headEnd(head), head);
          }
          break;
        }
        case "body": {
          if (this.#remaining === Infinity) return true;
          const take = Math.min(this.#remaining, bytes.length - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#end();
          break;
        }
        case "chunk-size":
        case "trailer": {
          const b = bytes[i++];
          if (b !== 10) {
            if (b !== 13 && this.#line.length < 1024) this.#line += String.fromCharCode(b);
            break;
          }
          const line = this.#line;
          this.#line = "";
          if (this.phase === "trailer") {
            if (line === "") this.#end();
            break;
          }
          const size = parseInt(line.split(";")[0].trim(), 16);
          if (!Number.isFinite(size) || size < 0) {
            // Not chunked coding after all: stop watching this message.
            this.phase = "tunnel";
            return true;
          }
          if (size === 0) this.phase = "trailer";
          else {
            this.#remaining = size;
            this.phase = "chunk-data";
          }
          break;
        }
        case "chunk-data": {
          const take = Math.min(this.#remaining, bytes.length - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            this.phase = "chunk-crlf";
            this.#remaining = 2;
          }
          break;
        }
        case "chunk-crlf": {
          i++;
          if (--this.#remaining === 0) this.phase = "chunk-size";
          break;
        }
      }
    }
    return true;
  }

  #begin(body: BodyFraming, head: Head): void {
    if (body === "interim") return;
    if (body === "tunnel") {
      this.phase = "tunnel";
      return;
    }
    if (body === "none") return this.#end();
    if (body === "chunked") {
      this.phase = "chunk-size";
      return;
    }
    if (body === "close") {
      this.#remaining = Infinity;
      this.phase = "body";
      return;
    }
    const length = Number(head.fields.get("content-length") ?? "0");
    if (!Number.isSafeInteger(length) || length < 0) {
      this.phase = "tunnel";
      return;
    }
    if (length === 0) return this.#end();
    this.#remaining = length;
    this.phase = "body";
  }

  #end(): void {
    this.phase = "head";
    this.events.messageEnd();
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(length);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

function plainResponse(
  status: number,
  reason: string,
  body: Record<string, string>,
  extra = "",
): Uint8Array {
  const text = JSON.stringify(body);
  return encoder.encode(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${
      encoder.encode(text).length
    }\r\nconnection: close\r\n${extra}\r\n${text}`,
  );
}

const TIMEOUT_BODY = {
  error: "Request timeout: the request head did not arrive in time; send it whole, promptly",
  kind: "request_timeout",
};
const TOO_LARGE_BODY = {
  error: "Request header fields too large; send a shorter request head",
  kind: "header_too_large",
};

function busyBody(max: number): Record<string, string> {
  return {
    error:
      `Service unavailable: the server is at its connection limit (${max}); retry shortly, or close idle connections`,
    kind: "connection_limit",
  };
}

/** What the accept loop can ask of a connection's relay. */
interface RelayState {
  /** Close if no request is in flight (a stopping server), else after the answer. */
  close(): void;
  /** Close now (a probe making room for a newer one). */
  evict(): void;
  /** True until the client sent its first byte. */
  silent: boolean;
}

/** How a connection is served. */
type Mode = "served" | "probe";

/**
 * Starts the guard: listens on `hostname:port` and relays to the inner
 * server on `127.0.0.1:innerPort` under the limits.
 */
export function guardConnections(options: GuardOptions): ConnectionGuard {
  const limits: ConnectionLimits = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(options.limits ?? {})) {
    if (value !== undefined) limits[key as keyof ConnectionLimits] = value;
  }
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;
  /** Open connections, each with its "close if idle" callback. */
  const open = new Map<Deno.Conn, () => void>();
  let served = 0;
  let probes = 0;
  /** The probes in accept order. */
  const probeState = new Map<Deno.Conn, RelayState>();
  let accepting = true;

  const finished = (async () => {
    while (accepting) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (!accepting || error instanceof Deno.errors.BadResource) break;
        // Out of file descriptors and the like: wait a little, keep serving.
        log("warn", `HTTP accept failed: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      let mode: Mode;
      if (served < limits.maxConnections) {
        served++;
        mode = "served";
      } else {
        if (probes >= limits.probeConnections) {
          // The reserve is full: the oldest probe that has sent nothing yet makes room
          // (a burst of silent connections must not keep a prompt health probe out).
          const silent = [...probeState].find(([, p]) => p.silent);
          if (silent) silent[1].evict();
          else {
            try {
              conn.close();
            } catch { /* already gone */ }
            continue;
          }
        }
        probes++;
        mode = "probe";
      }
      const idle: RelayState = { close: () => {}, evict: () => {}, silent: true };
      open.set(conn, () => idle.close());
      if (mode === "probe") probeState.set(conn, idle);
      relay(conn, mode, options.innerPort, limits, idle).finally(() => {
        open.delete(conn);
        if (mode === "served") served--;
        else {
          probes--;
          probeState.delete(conn);
        }
      });
    }
  })();

  return {
    address: { hostname: addr.hostname, port: addr.port },
    finished,
    stopAccepting() {
      if (!accepting) return;
      accepting = false;
      try {
        listener.close();
      } catch { /* already closed */ }
    },
    closeIdle() {
      for (const closeIfIdle of open.values()) closeIfIdle();
    },
    closeAll() {
      for (const conn of open.keys()) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
    },
  };
}

function isHealthProbe(head: Head): boolean {
  const [method, target] = head.startLine;
  return (method === "GET" || method === "HEAD") && /^\/healthz(?:\?|$)/.test(target ?? "");
}

/** Serves one client connection until either side is done. */
/** The client address of each relayed connection, by the local port of its inner connection. */
const peers = new Map<number, string>();

/**
 * The client behind an inner connection (the service sees the guard as its
 * peer): the address of the client whose bytes arrive from `innerPort`, the
 * guard's local port of that connection.
 */
export function peerOfInner(innerPort: number): string | undefined {
  return peers.get(innerPort);
}

async function relay(
  client: Deno.Conn,
  mode: Mode,
  innerPort: number,
  limits: ConnectionLimits,
  idle: RelayState,
): Promise<void> {
  const acceptedAt = Date.now();
  // Past the cap, a probe's head is due within a second: a slow one must not hold the reserve.
  const headDue = mode === "probe"
    ? Math.min(limits.headersTimeoutMs, PROBE_HEAD_MS)
    : limits.headersTimeoutMs;
  let inner: Promise<Deno.Conn> | undefined;
  let closed = false;
  let markClosed!: () => void;
  const done = new Promise<void>((resolve) => (markClosed = resolve));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let requestTimer: ReturnType<typeof setTimeout> | undefined;
  /** Methods of requests whose responses have not ended, oldest first. */
  const pending: string[] = [];
  let requests = 0;
  let headOpen = false;
  let tunnel = false;
  /** A probe relays one request and closes after its response. */
  let lastResponse = false;
  const innerConns: Deno.Conn[] = [];

  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    clearTimeout(requestTimer);
    for (const c of [client, ...innerConns]) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
    for (const c of innerConns) peers.delete((c.localAddr as Deno.NetAddr).port);
    markClosed();
  };
  /** Refused: the answer is written, what the client still sends is read and dropped. */
  let lingering = false;
  const refuse = async (bytes: Uint8Array) => {
    if (lingering || closed) return;
    clearTimeout(timer);
    clearTimeout(requestTimer);
    // Only between responses: bytes in the middle of an answer would corrupt it.
    if (pending.length > 0) return close();
    lingering = true;
    for (const c of innerConns) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
    try {
      await writeAll(client, bytes);
      // Closing with unread input would reset the connection and lose the answer:
      // end our side, and read what is still coming for a moment (the loop below drops it).
      await client.closeWrite();
      timer = setTimeout(close, LINGER_MS);
    } catch {
      close();
    }
  };
  const arm = (ms: number, onFire: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(onFire, Math.max(0, ms));
  };
  let draining = false;
  /** Set when the answer being written is the connection's last. */
  let closeAfterWrite = false;
  idle.close = () => {
    draining = true;
    if (!headOpen && pending.length === 0 && !tunnel) close();
  };
  idle.evict = () => close();
  const timedOut = () => void refuse(plainResponse(408, "Request Timeout", TIMEOUT_BODY));
  const waitForRequest = () => {
    if (tunnel || headOpen || pending.length > 0 || closed) return;
    // A new connection's first head is due from the accept; later ones may idle a while first.
    if (requests === 0) arm(headDue, close);
    else arm(limits.idleTimeoutMs, close);
  };

  const requestFramer = new Framer({
    headStart() {
      headOpen = true;
      const from = requests === 0 ? acceptedAt : Date.now();
      arm(from + headDue - Date.now(), timedOut);
      clearTimeout(requestTimer);
      requestTimer = setTimeout(close, limits.requestTimeoutMs);
    },
    headEnd(head) {
      headOpen = false;
      clearTimeout(timer);
      requests++;
      const method = (head.startLine[0] ?? "").toUpperCase();
      pending.push(method);
      // An upgrade (or CONNECT) turns into a tunnel only once the answer is 101.
      if (head.fields.has("transfer-encoding")) {
        return isChunked(head.fields) ? "chunked" : "tunnel";
      }
      return head.fields.has("content-length") ? "length" : "none";
    },
    messageEnd() {
      clearTimeout(requestTimer);
    },
  }, limits.maxHeaderBytes);

  const responseFramer = new Framer({
    headStart() {},
    headEnd(head) {
      const status = Number(head.startLine[1]);
      if (status === 101) {
        tunnel = true;
        clearTimeout(timer);
        clearTimeout(requestTimer);
        return "tunnel";
      }
      if (status >= 100 && status < 200) return "interim";
      const method = pending[0] ?? "GET";
      if (method === "HEAD" || status === 204 || status === 304) return "none";
      if (head.fields.has("transfer-encoding")) {
        return isChunked(head.fields) ? "chunked" : "close";
      }
      return head.fields.has("content-length") ? "length" : "close";
    },
    messageEnd() {
      pending.shift();
      if (lastResponse || draining) {
        // The probe's (or a stopping server's) last answer is written with this chunk: close after.
        closeAfterWrite = true;
        return;
      }
      waitForRequest();
    },
  }, 1024 * 1024);

  const pumpResponses = async (from: Deno.Conn) => {
    const buf = new Uint8Array(64 * 1024);
    try {
      while (!closed) {
        const n = await from.read(buf);
        if (n === null) break;
        const chunk = buf.subarray(0, n);
        if (!tunnel) responseFramer.feed(chunk);
        await writeAll(client, chunk);
        if (closeAfterWrite) break;
      }
    } catch { /* either side went away */ }
    // A refusal closes the inner side itself and lingers on the client's.
    if (!lingering) close();
  };
  const innerConn = (): Promise<Deno.Conn> =>
    inner ??= Deno.connect({ hostname: "127.0.0.1", port: innerPort }).then((c) => {
      innerConns.push(c);
      peers.set((c.localAddr as Deno.NetAddr).port, (client.remoteAddr as Deno.NetAddr).hostname);
      if (closed) c.close();
      else void pumpResponses(c);
      return c;
    });

  waitForRequest();
  const buf = new Uint8Array(64 * 1024);
  /** A probe's bytes, held until its head is known to ask /healthz. */
  let held: Uint8Array[] | undefined = mode === "probe" ? [] : undefined;
  try {
    while (!closed) {
      const n = await client.read(buf);
      if (n === null) {
        // The client closed its side: the inner server sees the same (cancellation).
        if (lingering) close();
        else if (inner) (await inner).closeWrite().catch(close);
        else close();
        break;
      }
      idle.silent = false;
      if (lingering) continue;
      const chunk = buf.slice(0, n);
      if (!tunnel && !requestFramer.feed(chunk)) {
        await refuse(plainResponse(431, "Request Header Fields Too Large", TOO_LARGE_BODY));
        continue;
      }
      if (held) {
        held.push(chunk);
        if (requests === 0) continue;
        const bytes = new Uint8Array(held.reduce((n, c) => n + c.length, 0));
        let off = 0;
        for (const c of held) bytes.set(c, (off += c.length) - c.length);
        held = undefined;
        const start = bytes.findIndex((b) => b !== 13 && b !== 10);
        const end = findHeadEnd(bytes);
        if (end < 0 || !isHealthProbe(parseHead(bytes.subarray(start, end)))) {
          pending.length = 0; // nothing was relayed: the refusal is the only answer
          await refuse(
            plainResponse(
              503,
              "Service Unavailable",
              busyBody(limits.maxConnections),
              "retry-after: 1\r\n",
            ),
          );
          continue;
        }
        // The health probe alone is relayed; whatever it pipelined after is not.
        lastResponse = true;
        await writeAll(await innerConn(), bytes.subarray(0, end + 4));
        continue;
      }
      if (lastResponse) continue;
      await writeAll(await innerConn(), chunk);
    }
  } catch {
    close();
  }
  await done;
}

/** The offset of the blank line ending a head (after leading blank lines), or -1. */
function findHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      // A head starts after any leading CRLFs; a blank line at the very start is not its end.
      if (bytes.subarray(0, i).some((b) => b !== 13 && b !== 10)) return i;
    }
  }
  return -1;
}
