/**
 * The guarded fetch against local servers on 127.0.0.1 (the address check
 * lets 127.0.0.1 through for these tests only): size caps, compression
 * bombs, deadlines, retries, charsets, redirects, pinning, proxies.
 */
import assert from "node:assert/strict";
import { classifyAddress } from "../../lib/net/address.ts";
import { NetError } from "../../lib/net/errors.ts";
import { Net, type NetDeps } from "../../lib/net/fetch.ts";
import { tableResolver } from "../../lib/net/resolver.ts";
import { FakeClock } from "../support/fake_clock.ts";

const allowLoopbackOne = (address: string) =>
  address === "127.0.0.1" ? undefined : classifyAddress(address);

function localNet(deps: NetDeps = {}): Net {
  return new Net({
    resolver: tableResolver({ "site.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] }),
    classify: allowLoopbackOne,
    ...deps,
  });
}

async function serve(
  handler: (req: Request) => Response | Promise<Response>,
  fn: (base: string) => Promise<void>,
) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  try {
    await fn(`http://site.test:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

/** A TCP server writing raw HTTP, for responses Deno.serve would not produce. */
async function rawServe(
  respond: (conn: Deno.Conn) => Promise<void>,
  fn: (base: string) => Promise<void>,
) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      (async () => {
        const buf = new Uint8Array(8192);
        await conn.read(buf); // the request head
        await respond(conn).catch(() => {});
      })();
    }
  })().catch(() => {});
  try {
    await fn(`http://site.test:${(listener.addr as Deno.NetAddr).port}`);
  } finally {
    listener.close();
    for (const c of conns) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    await accepting;
  }
}

const enc = (s: string) => new TextEncoder().encode(s);

async function gzip(
  bytes: Uint8Array | ReadableStream<Uint8Array>,
  format = "gzip",
): Promise<Uint8Array<ArrayBuffer>> {
  const stream = bytes instanceof Uint8Array ? new Blob([bytes as BlobPart]).stream() : bytes;
  return new Uint8Array(
    await new Response(
      stream.pipeThrough(
        new CompressionStream(format as CompressionFormat) as unknown as TransformStream<
          Uint8Array,
          Uint8Array
        >,
      ),
    ).arrayBuffer(),
  );
}

function zeros(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(1 << 20);
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      c.enqueue(chunk);
      sent += chunk.length;
    },
  });
}

async function failure(p: Promise<unknown>): Promise<NetError> {
  const e = await p.then(() => undefined, (err) => err);
  assert.ok(e instanceof NetError, `expected NetError, got ${e}`);
  return e;
}

Deno.test("fetch: a plain page through the pinned transport", async () => {
  await serve(
    (req) => new Response(`hello ${new URL(req.url).pathname} ua=${req.headers.get("user-agent")}`),
    async (base) => {
      const result = await localNet().fetch(`${base}/a?b=1#frag`);
      assert.equal(result.status, 200);
      assert.match(
        result.text(),
        /^hello \/a ua=parkour-mcp\/\d+\.\d+\.\d+ \(MCP content tool; \+https:\/\/\S+\)$/,
      );
      assert.equal(result.pinned, true);
      assert.equal(result.remoteAddress, "127.0.0.1");
    },
  );
});

Deno.test("fetch: a body of many chunks arrives byte for byte, with or without a stated length", async () => {
  // 4 MB of varied bytes (the cap is 5 MiB), streamed in uneven writes: hundreds of chunks.
  const body = new Uint8Array(4_000_000);
  for (let i = 0; i < body.length; i++) body[i] = (i * 2654435761) >>> 24;
  const pieces = [7, 65_536, 1_000, 200_000, 31];
  await serve(
    (req) =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (let at = 0, k = 0; at < body.length; k++) {
              const end = Math.min(body.length, at + pieces[k % pieces.length]);
              controller.enqueue(body.slice(at, end));
              at = end;
            }
            controller.close();
          },
        }),
        // /sized states its length (the bytes go straight into one array), the others do not.
        { headers: req.url.endsWith("/sized") ? { "content-length": String(body.length) } : {} },
      ),
    async (base) => {
      const net = localNet();
      // At once: the chunks of one body are never another's.
      const [a, b, sized] = await Promise.all(
        ["a", "b", "sized"].map((p) => net.fetch(`${base}/${p}`)),
      );
      assert.equal(sized.headers.get("content-length"), String(body.length));
      assert.equal(a.headers.get("content-length"), null);
      for (const result of [a, b, sized]) {
        assert.equal(result.pinned, true);
        assert.equal(result.bytes.length, body.length);
        assert.ok(result.bytes.every((v, i) => v === body[i]), "the same bytes in the same order");
        // One array that fills its buffer: a worker can take it over without a copy.
        assert.equal(result.bytes.byteOffset, 0);
        assert.equal(result.bytes.buffer.byteLength, body.length);
      }
    },
  );
});

Deno.test("fetch: a Content-Length over the cap is refused before the body is read", async () => {
  await rawServe(async (conn) => {
    await conn.write(
      enc("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 104857600\r\n\r\n<html>"),
    );
  }, async (base) => {
    const error = await failure(localNet().fetch(base));
    assert.equal(error.kind, "too_large");
    assert.match(error.message, /is 100 MiB, over the 5 MiB limit/);
  });
});

Deno.test("fetch: an endless chunked body stops at the cap; a raised cap is honoured", async () => {
  let pulled = 0;
  await serve(() =>
    new Response(
      new ReadableStream({
        pull(c) {
          pulled++;
          c.enqueue(new Uint8Array(64 * 1024).fill(97));
        },
      }),
    ), async (base) => {
    const error = await failure(localNet().fetch(base));
    assert.equal(error.kind, "too_large");
    assert.match(error.message, /exceeded the 5 MiB limit/);
    const error50 = await failure(localNet().fetch(base, { maxBytes: 6 * 1024 * 1024 }));
    assert.match(error50.message, /exceeded the 6 MiB limit/);
  });
  assert.ok(pulled > 80, "the server streamed until cut off");
});

Deno.test("fetch: gzip, deflate and brotli bombs stop at the cap after decompression", async () => {
  const bombs: [string, string][] = [["gzip", "gzip"], ["deflate", "deflate"], ["brotli", "br"]];
  for (const [format, coding] of bombs) {
    const bomb = await gzip(zeros(64 * 1024 * 1024), format);
    assert.ok(bomb.length < 1024 * 1024, `${format} bomb is small on the wire (${bomb.length})`);
    await serve(
      () =>
        new Response(bomb, {
          headers: { "content-encoding": coding, "content-type": "text/html" },
        }),
      async (base) => {
        const error = await failure(localNet().fetch(base));
        assert.equal(error.kind, "too_large", format);
        assert.match(error.message, /counted after decompression/);
      },
    );
  }
});

Deno.test("fetch: compressed pages are decoded", async () => {
  const page = "<html><body>" + "compressible text ".repeat(500) + "</body></html>";
  for (
    const [format, coding] of [
      ["gzip", "gzip"],
      ["deflate", "deflate"],
      ["deflate-raw", "deflate"],
      ["brotli", "br"],
    ]
  ) {
    const body = await gzip(enc(page), format);
    await serve(
      () => new Response(body, { headers: { "content-encoding": coding } }),
      async (base) => {
        const result = await localNet().fetch(base);
        assert.equal(result.text(), page, format);
      },
    );
  }
});

Deno.test("fetch: a 1 byte/s drip stops at the deadline", async () => {
  await rawServe(async (conn) => {
    await conn.write(
      enc("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"),
    );
    for (let i = 0; i < 30; i++) {
      await conn.write(enc("1\r\nx\r\n"));
      await new Promise((r) => setTimeout(r, 1000));
    }
  }, async (base) => {
    const error = await failure(localNet().fetch(base, { deadlineMs: 1500 }));
    assert.equal(error.kind, "timeout");
    assert.match(error.message, /within 1\.5 s/);
  });
});

Deno.test("fetch: 429 and 503 are retried after Retry-After (fake clock)", async () => {
  const clock = new FakeClock();
  const cases: [number, (now: number) => string, number][] = [
    [429, () => "2", 2000],
    [503, (now) => new Date(now + 5000).toUTCString(), 5000],
  ];
  for (const [status, retryAfter, wait] of cases) {
    let hits = 0;
    await serve(() => {
      hits++;
      return hits === 1
        ? new Response("slow down", { status, headers: { "retry-after": retryAfter(clock.now()) } })
        : new Response("ok");
    }, async (base) => {
      const pending = localNet({ clock }).fetch(base);
      await clock.sleepers(1);
      assert.equal(hits, 1);
      assert.ok(
        Math.abs(clock.pending[0] - wait) <= 1000,
        `waits ${clock.pending[0]} ms for ${status}`,
      );
      await clock.advance(wait - 1001);
      assert.equal(hits, 1, "not retried early");
      await clock.advance(1001);
      const result = await pending;
      assert.equal(result.status, 200);
      assert.equal(hits, 2);
    });
  }
});

Deno.test("fetch: retries back off exponentially and are bounded", async () => {
  const clock = new FakeClock();
  let hits = 0;
  await serve(() => {
    hits++;
    return new Response("busy", { status: 503 });
  }, async (base) => {
    const pending = localNet({ clock }).fetch(base);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      await clock.sleepers(1);
      waits.push(clock.pending[0]);
      await clock.advance(clock.pending[0]);
    }
    const result = await pending;
    assert.deepEqual(waits, [1000, 2000, 4000]);
    assert.equal(result.status, 503, "the last answer is returned after the retries");
    assert.equal(hits, 4);
  });
  // A Retry-After beyond the limit is not waited for.
  hits = 0;
  await serve(() => {
    hits++;
    return new Response("later", { status: 429, headers: { "retry-after": "3600" } });
  }, async (base) => {
    const result = await localNet({ clock }).fetch(base);
    assert.equal(result.status, 429);
    assert.equal(hits, 1);
  });
});

Deno.test("fetch: requests to one host are spaced, not refused (fake clock)", async () => {
  const clock = new FakeClock();
  const starts: number[] = [];
  let arrived: (() => void) | undefined;
  const nextHit = () => new Promise<void>((resolve) => (arrived = resolve));
  await serve(() => {
    starts.push(clock.now());
    arrived?.();
    return new Response("ok");
  }, async (base) => {
    const net = localNet({ clock });
    const limit = { key: "site.test", intervalMs: 3000 };
    let hit = nextHit();
    const all = Promise.all([1, 2, 3].map((i) => net.fetch(`${base}/${i}`, { limit })));
    await hit;
    await clock.sleepers(2);
    assert.deepEqual(clock.pending, [3000, 6000], "two callers queue for later slots");
    for (const expected of [3000, 6000]) {
      hit = nextHit();
      await clock.advance(3000);
      await hit;
      assert.equal(starts.at(-1)! - starts[0], expected);
    }
    await all;
    assert.equal(starts.length, 3);
  });
});

Deno.test("fetch: charset from the header, a meta tag, or the default", async () => {
  const cp1252 = new Uint8Array([0x3c, 0x70, 0x3e, 0x93, 0x48, 0x69, 0x94, 0x20, 0x80, 0x35]); // <p>“Hi” €5
  const metaOnly = new Uint8Array([
    ...enc('<html><head><meta charset="windows-1252"><title>t</title></head><body>caf'),
    0xe9,
    ...enc("</body></html>"),
  ]);
  const httpEquiv = new Uint8Array([
    ...enc(
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body>',
    ),
    0x93,
    0xfa,
    0x96,
    0x7b,
    ...enc("</body></html>"),
  ]);
  const responses: Record<string, [Uint8Array<ArrayBuffer>, string]> = {
    "/header": [cp1252, "text/html; charset=windows-1252"],
    "/latin1": [cp1252, "text/html; charset=ISO-8859-1"],
    "/meta": [metaOnly, "text/html"],
    "/equiv": [httpEquiv, "text/html"],
    "/utf8": [enc("<p>naïve ✓</p>"), "text/html"],
  };
  await serve((req) => {
    const [body, type] = responses[new URL(req.url).pathname];
    return new Response(body, { headers: { "content-type": type } });
  }, async (base) => {
    const net = localNet();
    const header = await net.fetch(`${base}/header`);
    assert.equal(header.text(), "<p>“Hi” €5");
    assert.deepEqual(header.charset(), { encoding: "windows-1252", source: "header" });
    assert.equal((await net.fetch(`${base}/latin1`)).text(), "<p>“Hi” €5");
    const meta = await net.fetch(`${base}/meta`);
    assert.match(meta.text(), /café/);
    assert.equal(meta.charset().source, "meta");
    assert.match((await net.fetch(`${base}/equiv`)).text(), /日本/);
    assert.equal((await net.fetch(`${base}/utf8`)).text(), "<p>naïve ✓</p>");
  });
});

Deno.test("fetch: redirects are followed by hand and re-checked on every hop", async () => {
  await serve((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/start") return Response.redirect(new URL("/middle", req.url), 301);
    if (path === "/middle") {
      return new Response(null, {
        status: 307,
        headers: { location: "http://other.test:" + new URL(req.url).port + "/end" },
      });
    }
    if (path === "/private") {
      return new Response(null, { status: 302, headers: { location: "http://10.0.0.1/" } });
    }
    return new Response(`end host=${req.headers.get("host")}`);
  }, async (base) => {
    const net = localNet();
    const result = await net.fetch(`${base}/start`);
    assert.match(result.text(), /^end host=other\.test:\d+$/);
    assert.equal(result.redirects.length, 2);
    assert.equal(result.requestedUrl, `${base}/start`);
    const error = await failure(net.fetch(`${base}/private`));
    assert.equal(error.kind, "blocked_address");
  });
});

Deno.test("fetch: the connection goes to the checked address even when the name changes its answer", async () => {
  // Two servers on one port: 127.0.0.1 stands for a public address, 127.0.0.2 for a private one.
  const hits = { checked: 0, rebound: 0 };
  const a = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits.checked++;
    return new Response("checked address");
  });
  const b = Deno.serve({ hostname: "127.0.0.2", port: a.addr.port, onListen() {} }, () => {
    hits.rebound++;
    return new Response("rebound address");
  });
  let lookups = 0;
  const net = new Net({
    resolver: tableResolver({
      "rebind.test": () => (++lookups === 1 ? ["127.0.0.1"] : ["127.0.0.2"]),
    }),
    classify: allowLoopbackOne,
  });
  try {
    const url = `http://rebind.test:${a.addr.port}/`;
    const result = await net.fetch(url);
    assert.equal(result.text(), "checked address");
    assert.equal(lookups, 1, "the name was resolved once: no second lookup at connect time");
    assert.deepEqual(hits, { checked: 1, rebound: 0 });
    // The next request sees the new answer, and the check refuses it.
    const error = await failure(net.fetch(url));
    assert.equal(error.kind, "blocked_address");
    assert.deepEqual(hits, { checked: 1, rebound: 0 });
  } finally {
    await a.shutdown();
    await b.shutdown();
  }
});

Deno.test({
  name: "fetch: behind a proxy the result says the check is degraded",
  sanitizeResources: false, // the proxy client is kept for reuse
  async fn() {
    const seen: string[] = [];
    const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      seen.push(req.url);
      return new Response("via proxy");
    });
    try {
      const proxyUrl = `http://127.0.0.1:${proxy.addr.port}`;
      const net = new Net({
        resolver: tableResolver({}),
        env: (
          name,
        ) => (name === "HTTP_PROXY" ? proxyUrl : name === "NO_PROXY" ? "direct.test" : undefined),
      });
      const result = await net.fetch("http://unresolvable-here.test/page");
      assert.equal(result.text(), "via proxy");
      assert.equal(result.degraded, true);
      assert.equal(result.pinned, false);
      assert.match(seen[0], /unresolvable-here\.test\/page$/);
      // A name the check can resolve is still refused if private.
      const blocked = new Net({
        resolver: tableResolver({ "internal.test": ["10.0.0.8"] }),
        env: (name) => (name === "HTTP_PROXY" ? proxyUrl : undefined),
      });
      assert.equal((await failure(blocked.fetch("http://internal.test/"))).kind, "blocked_address");
      // localhost by name, whatever its case or trailing dot, never goes to the proxy.
      for (const host of ["LOCALHOST.", "localhost", "Api.LocalHost.", "x.localhost"]) {
        const error = await failure(blocked.fetch(`http://${host}:8080/`));
        assert.equal(error.kind, "blocked_address", host);
        assert.match(error.message, /is a loopback name/, host);
      }
      assert.equal(seen.length, 1, "nothing more reached the proxy");
    } finally {
      await proxy.shutdown();
    }
  },
});

Deno.test("fetch: a server that cannot be reached is a clear transport error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const error = await failure(localNet().fetch(`http://site.test:${port}/`));
  assert.equal(error.kind, "transport");
  assert.match(error.message, /could not reach site\.test/);
});

Deno.test("fetch: a redirect to another origin drops every header the caller set but the safe ones", async () => {
  const credentials = [
    "authorization",
    "cookie",
    "x-api-key",
    "proxy-authorization",
    "x-goog-api-key",
    "private-token",
    "x-auth-token",
  ];
  const seen: Record<string, string | null>[] = [];
  const record = (req: Request) => {
    seen.push(Object.fromEntries(
      [...credentials, "accept", "accept-language", "user-agent"].map((
        h,
      ) => [h, req.headers.get(h)]),
    ));
    return new Response("landed");
  };
  const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, record);
  try {
    await serve((req) => {
      const path = new URL(req.url).pathname;
      if (path === "/away") {
        return Response.redirect(`http://other.test:${other.addr.port}/landing`, 302);
      }
      if (path === "/same") return Response.redirect(new URL("/landing", req.url), 302);
      return record(req);
    }, async (base) => {
      const headers = Object.fromEntries(credentials.map((h) => [h, `secret-${h}`]));
      const sent = { ...headers, accept: "application/json", "accept-language": "fr" };
      const net = localNet();
      assert.equal((await net.fetch(`${base}/same`, { headers: sent })).text(), "landed");
      assert.equal((await net.fetch(`${base}/away`, { headers: sent })).text(), "landed");
      const [same, away] = seen;
      for (const h of credentials) {
        assert.equal(same[h], `secret-${h}`, `${h} kept on the same origin`);
        assert.equal(away[h], null, `${h} dropped when the redirect left the origin`);
      }
      assert.equal(away.accept, "application/json", "accept is kept");
      assert.equal(away["accept-language"], "fr", "accept-language is kept");
      assert.match(away["user-agent"] ?? "", /^parkour-mcp\//);
    });
  } finally {
    await other.shutdown();
  }
});
