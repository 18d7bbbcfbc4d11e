/**
 * The connection guard of the HTTP service (lib/server/connections.ts), end
 * to end: `main.ts serve --http` as a real process with small limits from
 * the environment, driven over raw TCP sockets. A request head that trickles
 * in is answered 408 and closed once the header timeout is up; connections
 * past the cap get 503 while `/healthz` still answers; an ordinary client
 * is served as before.
 */
import assert from "node:assert/strict";
import { HttpServerProcess } from "../support/process.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function portOf(server: HttpServerProcess): number {
  return Number(new URL(server.url).port);
}

/** Reads until the peer closes (or `ms` pass); the text and when it closed. */
async function readToClose(
  conn: Deno.Conn,
  started: number,
  ms = 10_000,
): Promise<{ text: string; closedAfterMs?: number }> {
  let text = "";
  const buf = new Uint8Array(4096);
  const timeout = setTimeout(() => conn.close(), ms);
  try {
    while (true) {
      const n = await conn.read(buf);
      if (n === null) return { text, closedAfterMs: Date.now() - started };
      text += decoder.decode(buf.subarray(0, n));
    }
  } catch {
    return { text };
  } finally {
    clearTimeout(timeout);
  }
}

/** One request on a fresh connection; the raw answer. */
async function rawRequest(port: number, head: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(encoder.encode(head));
  const { text } = await readToClose(conn, Date.now(), 5000);
  try {
    conn.close();
  } catch { /* closed by the server */ }
  return text;
}

Deno.test("http connections: a slow request head is answered 408 and closed when the header timeout is up", async () => {
  const server = await HttpServerProcess.start(undefined, [], {
    PARKOUR_HTTP_HEADERS_TIMEOUT_MS: "1000",
    PARKOUR_HTTP_IDLE_TIMEOUT_MS: "500",
  });
  const port = portOf(server);
  const slow: Deno.Conn[] = [];
  try {
    const started = Date.now();
    for (let i = 0; i < 5; i++) slow.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    // Slowloris: the request line, then one more header line every 200 ms, never the blank line.
    for (const c of slow) {
      await c.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    }
    let n = 0;
    const trickle = setInterval(() => {
      n++;
      for (const c of slow) c.write(encoder.encode(`X-Slow-${n}: 1\r\n`)).catch(() => {});
    }, 200);
    const results = await Promise.all(slow.map((c) => readToClose(c, started)));
    clearInterval(trickle);
    for (const r of results) {
      assert.ok(r.closedAfterMs !== undefined, "the server closed the slow connection");
      assert.ok(r.closedAfterMs >= 900, `not before the timeout: ${r.closedAfterMs} ms`);
      assert.ok(r.closedAfterMs < 5000, `closed once the timeout was up: ${r.closedAfterMs} ms`);
      assert.match(r.text, /^HTTP\/1\.1 408 /);
      assert.match(r.text, /"kind":"request_timeout"/);
    }
    // A connection that sends nothing at all is closed too.
    const idle = await Deno.connect({ hostname: "127.0.0.1", port });
    const quiet = await readToClose(idle, Date.now());
    assert.ok(quiet.closedAfterMs !== undefined && quiet.closedAfterMs < 5000, "idle closed");
    // A head larger than 64 KiB is refused with 431.
    const big = await rawRequest(
      port,
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`,
    );
    assert.match(big, /^HTTP\/1\.1 431 /);
    // A kept-alive connection is served, then closed once idle past its timeout.
    const kept = await Deno.connect({ hostname: "127.0.0.1", port });
    await kept.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    const idleClose = await readToClose(kept, Date.now());
    assert.match(idleClose.text, /^HTTP\/1\.1 200 /);
    assert.ok(
      idleClose.closedAfterMs !== undefined && idleClose.closedAfterMs >= 400 &&
        idleClose.closedAfterMs < 5000,
      `closed after the idle timeout: ${idleClose.closedAfterMs} ms`,
    );
    // A prompt client is served.
    const ok = await rawRequest(
      port,
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert.match(ok, /^HTTP\/1\.1 200 /);
  } finally {
    for (const c of slow) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    await server.stop();
  }
});

Deno.test("http connections: past the cap new connections get 503, /healthz still answers, keep-alive clients are served", async () => {
  const server = await HttpServerProcess.start(undefined, [], {
    PARKOUR_HTTP_MAX_CONNECTIONS: "20",
    PARKOUR_HTTP_HEADERS_TIMEOUT_MS: "30000",
  });
  const port = portOf(server);
  const held: Deno.Conn[] = [];
  try {
    // Twenty connections that send nothing fill the cap.
    for (let i = 0; i < 20; i++) held.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    await new Promise((r) => setTimeout(r, 300));
    const refused = await rawRequest(
      port,
      "GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    );
    assert.match(refused, /^HTTP\/1\.1 503 /, refused.slice(0, 300));
    assert.match(refused, /retry-after: 1/i);
    assert.match(refused, /"kind":"connection_limit"/);
    assert.match(refused, /connection limit \(20\)/);
    const health = await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert.match(health, /^HTTP\/1\.1 200 /, health);
    assert.match(health, /"version"/);

    // Freed slots serve again, and several requests on one kept-alive connection work.
    for (const c of held.splice(0)) c.close();
    await new Promise((r) => setTimeout(r, 300));
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    // Three requests, the last pipelined after the second, then close.
    await conn.write(encoder.encode(head));
    await new Promise((r) => setTimeout(r, 100));
    await conn.write(
      encoder.encode(head + head.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")),
    );
    const { text } = await readToClose(conn, Date.now());
    assert.equal(text.match(/HTTP\/1\.1 200 /g)?.length, 3, text);
  } finally {
    for (const c of held) c.close();
    await server.stop();
  }
});
