/**
 * The render's proxy spoken to directly, as the browser speaks to it: plain
 * requests in absolute form and CONNECT tunnels. A loopback "canary" that is
 * not allowed must see no connection; an allowed origin is reached at the
 * address the guard resolved (pinned), whatever the name; malformed requests
 * get 400.
 */
import assert from "node:assert/strict";
import { parseAuthority, startRenderProxy } from "../../lib/render/proxy.ts";
import type { GuardOptions } from "../../lib/render/guard.ts";
import { tableResolver } from "../../lib/net/resolver.ts";

let canaryConnections = 0;
const canary = Deno.listen({ hostname: "127.0.0.1", port: 0 });
(async () => {
  for await (const conn of canary) {
    canaryConnections++;
    conn.close();
  }
})();
const CANARY_PORT = (canary.addr as Deno.NetAddr).port;

const origin = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (req) => new Response(`origin saw ${new URL(req.url).pathname} ${req.headers.get("connection")}`),
);
const ORIGIN_PORT = origin.addr.port;

const guard: GuardOptions = {
  allowPrivate: false,
  allowedOrigins: [`http://allowed.test:${ORIGIN_PORT}`],
  // Names of the test: one resolving to loopback, one to the allowed origin's address.
  resolver: tableResolver({
    "inward.test": ["127.0.0.1"],
    "allowed.test": ["127.0.0.1"],
    "mixed.test": ["93.184.215.14", "::1"],
  }),
};

/** Sends `head` to the proxy and returns all it answers. */
async function exchange(server: string, head: string): Promise<string> {
  const port = Number(new URL(server).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(head));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(16 * 1024);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
    // A CONNECT answer keeps the tunnel open: its head is enough.
    if (
      head.startsWith("CONNECT") && new TextDecoder().decode(chunks.at(-1)).includes("\r\n\r\n")
    ) {
      break;
    }
  }
  conn.close();
  return new TextDecoder().decode(
    chunks.reduce((a, b) => new Uint8Array([...a, ...b]), new Uint8Array()),
  );
}

Deno.test("render proxy: plain requests and tunnels to loopback are refused, none connects", async () => {
  const proxy = startRenderProxy(guard);
  try {
    const targets = [
      `GET http://127.0.0.1:${CANARY_PORT}/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      `GET http://2130706433:${CANARY_PORT}/b HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET http://inward.test:${CANARY_PORT}/c HTTP/1.1\r\nHost: inward.test\r\n\r\n`,
      `GET http://mixed.test:${CANARY_PORT}/d HTTP/1.1\r\nHost: mixed.test\r\n\r\n`,
      `CONNECT 127.0.0.1:${CANARY_PORT} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      `CONNECT [::1]:${CANARY_PORT} HTTP/1.1\r\n\r\n`,
      `CONNECT localhost:${CANARY_PORT} HTTP/1.1\r\n\r\n`,
      `CONNECT inward.test:${CANARY_PORT} HTTP/1.1\r\n\r\n`,
    ];
    for (const head of targets) {
      const answer = await exchange(proxy.server, head);
      assert.match(answer, /^HTTP\/1\.1 403 /, head);
      assert.match(answer + " " + JSON.stringify(proxy.refused), /loopback address/);
    }
    assert.equal(canaryConnections, 0, "nothing reached the canary");
    assert.equal(proxy.refused.length, targets.length);
    assert.match(
      proxy.refused[3].reason,
      /mixed\.test resolves to ::1, which is a loopback address/,
    );
  } finally {
    proxy.close();
  }
});

Deno.test("render proxy: an allowed origin is reached at the checked address, one request per connection", async () => {
  const proxy = startRenderProxy(guard);
  try {
    // allowed.test exists only in the guard's table: the connection goes to what it resolved.
    const answer = await exchange(
      proxy.server,
      `GET http://allowed.test:${ORIGIN_PORT}/page?q=1 HTTP/1.1\r\nHost: allowed.test\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\n\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /origin saw \/page close/);
    const tunnel = await exchange(
      proxy.server,
      `CONNECT allowed.test:${ORIGIN_PORT} HTTP/1.1\r\n\r\n`,
    );
    assert.match(tunnel, /^HTTP\/1\.1 200 Connection Established/);
    // Another port of the same host is not the allowed origin.
    const other = await exchange(
      proxy.server,
      `CONNECT allowed.test:${CANARY_PORT} HTTP/1.1\r\n\r\n`,
    );
    assert.match(other, /^HTTP\/1\.1 403 /);
    assert.equal(canaryConnections, 0);
  } finally {
    proxy.close();
  }
});

Deno.test("render proxy: malformed requests get 400, other schemes 403", async () => {
  const proxy = startRenderProxy(guard);
  try {
    for (
      const head of [
        "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n",
        "CONNECT nohost HTTP/1.1\r\n\r\n",
        "CONNECT a:99999 HTTP/1.1\r\n\r\n",
        "NONSENSE\r\n\r\n",
      ]
    ) {
      assert.match(await exchange(proxy.server, head), /^HTTP\/1\.1 400 /, head);
    }
    assert.match(
      await exchange(proxy.server, "GET ftp://example.com/ HTTP/1.1\r\n\r\n"),
      /^HTTP\/1\.1 403 /,
    );
  } finally {
    proxy.close();
  }
});

Deno.test("render proxy: CONNECT targets are parsed and canonicalised", () => {
  assert.deepEqual(parseAuthority("example.com:443"), { host: "example.com", port: 443 });
  assert.deepEqual(parseAuthority("[::1]:80"), { host: "[::1]", port: 80 });
  assert.deepEqual(parseAuthority("2130706433:80"), { host: "127.0.0.1", port: 80 });
  assert.deepEqual(parseAuthority("EXAMPLE.com:8080"), { host: "example.com", port: 8080 });
  assert.equal(parseAuthority("example.com"), undefined);
  assert.equal(parseAuthority("a@b:80"), undefined);
  assert.equal(parseAuthority("a:0"), undefined);
});

globalThis.addEventListener("unload", () => {
  canary.close();
  void origin.shutdown();
});
