/**
 * MCP over Streamable HTTP, end to end: `main.ts serve --http` as a real
 * process, driven by the SDK v2 client in both eras and by raw requests for
 * the header, Origin, Host and token rules.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { HttpServerProcess, initializeParams, runCli, SHIPPED_TOOLS } from "../support/process.ts";

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> | null; headers: Headers }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  if (res.headers.get("content-type")?.includes("text/event-stream")) {
    const data = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5));
    json = data.length ? JSON.parse(data.at(-1)!) : null;
  } else if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  return { status: res.status, json, headers: res.headers };
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  const h: Record<string, string> = { "mcp-protocol-version": MODERN, "mcp-method": method };
  if (name) h["mcp-name"] = name;
  return h;
}

const errorCode = (json: Record<string, unknown> | null) =>
  (json?.error as { code?: number } | undefined)?.code;

Deno.test("http: SDK v2 clients of both eras connect and list the tools", async () => {
  const server = await HttpServerProcess.start();
  try {
    const legacy = new Client({ name: "legacy", version: "1" });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    assert.equal(legacy.getNegotiatedProtocolVersion(), "2025-11-25");
    assert.deepEqual((await legacy.listTools()).tools.map((t) => t.name), SHIPPED_TOOLS);
    await legacy.ping();
    await legacy.close();

    const modern = new Client(
      { name: "modern", version: "1" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await modern.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    assert.equal(modern.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(modern.getServerVersion()?.name, "parkour-mcp");
    assert.deepEqual((await modern.listTools()).tools.map((t) => t.name), SHIPPED_TOOLS);
    await modern.close();

    const auto = new Client({ name: "auto", version: "1" }, {
      versionNegotiation: { mode: "auto" },
    });
    await auto.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    assert.equal(auto.getNegotiatedProtocolVersion(), MODERN);
    await auto.close();
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

Deno.test("http: 2026-07-28 rules (discover, cache hints, -32022, -32602, -32020, 405)", async () => {
  const server = await HttpServerProcess.start();
  try {
    const url = server.url;
    const discover = await post(
      url,
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: META } },
      modernHeaders("server/discover"),
    );
    assert.equal(discover.status, 200);
    const result = discover.json?.result as Record<string, unknown>;
    assert.deepEqual(result.supportedVersions, [MODERN]);
    assert.equal(result.resultType, "complete");
    assert.equal(result.ttlMs, 3_600_000);
    assert.equal(result.cacheScope, "private");
    assert.equal(discover.headers.get("mcp-session-id"), null, "no sessions in the modern era");

    const list = await post(
      url,
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: META } },
      modernHeaders("tools/list"),
    );
    assert.deepEqual(
      (list.json?.result as { tools: { name: string }[] }).tools.map((t) => t.name),
      SHIPPED_TOOLS,
    );
    assert.equal((list.json?.result as { ttlMs: number }).ttlMs, 3_600_000);

    const unsupported = await post(
      url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/list",
        params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2030-01-01" } },
      },
      { ...modernHeaders("tools/list"), "mcp-protocol-version": "2030-01-01" },
    );
    assert.equal(unsupported.status, 400);
    assert.equal(errorCode(unsupported.json), -32022);
    assert.deepEqual((unsupported.json?.error as { data: unknown }).data, {
      supported: [MODERN],
      requested: "2030-01-01",
    });

    const noCaps = await post(
      url,
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } },
      },
      modernHeaders("tools/list"),
    );
    assert.equal(noCaps.status, 400);
    assert.equal(errorCode(noCaps.json), -32602);

    const methodMismatch = await post(
      url,
      { jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: META } },
      modernHeaders("server/discover"),
    );
    assert.equal(methodMismatch.status, 400);
    assert.equal(errorCode(methodMismatch.json), -32020);

    const versionMismatch = await post(
      url,
      { jsonrpc: "2.0", id: 6, method: "tools/list", params: { _meta: META } },
      { ...modernHeaders("tools/list"), "mcp-protocol-version": "2025-11-25" },
    );
    assert.equal(versionMismatch.status, 400);
    assert.equal(errorCode(versionMismatch.json), -32020);

    const missingMethod = await post(
      url,
      { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: META } },
      { "mcp-protocol-version": MODERN },
    );
    assert.equal(missingMethod.status, 400);
    assert.equal(errorCode(missingMethod.json), -32020);

    const nameMismatch = await post(
      url,
      {
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: { name: "a_tool", arguments: {}, _meta: META },
      },
      modernHeaders("tools/call", "other_tool"),
    );
    assert.equal(nameMismatch.status, 400);
    assert.equal(errorCode(nameMismatch.json), -32020);

    const unknownTool = await post(
      url,
      {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "nope", arguments: {}, _meta: META },
      },
      modernHeaders("tools/call", "nope"),
    );
    assert.equal(errorCode(unknownTool.json), -32602);

    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(url, { method, headers: { accept: "text/event-stream" } });
      await res.body?.cancel();
      assert.equal(res.status, 405, method);
    }
  } finally {
    await server.stop();
  }
});

Deno.test("http: malformed bodies get JSON-RPC errors, oversize gets 413", async () => {
  const server = await HttpServerProcess.start();
  try {
    const bad = await post(server.url, "{not json");
    assert.equal(bad.status, 400);
    assert.equal(errorCode(bad.json), -32700);
    const huge = await post(
      server.url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "ping",
        params: { x: "a".repeat(5 * 1024 * 1024) },
      }),
    );
    assert.equal(huge.status, 413);
    const wrongType = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    await wrongType.body?.cancel();
    assert.equal(wrongType.status, 415);
    const ok = await post(server.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: initializeParams("2025-03-26"),
    });
    assert.equal((ok.json?.result as { protocolVersion: string }).protocolVersion, "2025-03-26");
  } finally {
    await server.stop();
  }
});

Deno.test("http: Origin and Host checks (DNS-rebinding protection)", async () => {
  const server = await HttpServerProcess.start();
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: initializeParams("2025-11-25"),
  };
  try {
    const port = server.port;
    for (
      const origin of ["http://evil.example", "null", "https://localhost.evil.example", "file://"]
    ) {
      const res = await post(server.url, init, { origin });
      assert.equal(res.status, 403, `origin ${origin}`);
    }
    for (
      const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, "http://[::1]:3000"]
    ) {
      const res = await post(server.url, init, { origin });
      assert.equal(res.status, 200, `origin ${origin}`);
    }
    // Deno's fetch sets Host from the URL; a raw connection can lie about it.
    for (
      const [host, expected] of [
        ["evil.example", 403],
        [`evil.example:${port}`, 403],
        ["", 403],
        [`localhost:${port}`, 200],
        [`127.0.0.1:${port}`, 200],
        [`[::1]:${port}`, 200],
        [`LOCALHOST:${port}`, 200],
        // Loopback in the numeric forms a URL parser accepts: names are matched as written.
        [`127.1:${port}`, 403],
        [`2130706433:${port}`, 403],
        [`0x7f000001:${port}`, 403],
        [`0177.0.0.1:${port}`, 403],
        [`127.0.0.1.:${port}`, 403],
        [`[0:0:0:0:0:0:0:1]:${port}`, 403],
        ["127.1", 403],
        // Malformed: a clear 400, not a 500.
        ["[::1", 400],
        ["local host", 400],
        ["localhost:99999", 400],
      ] as const
    ) {
      assert.equal(await rawStatus(port, host, JSON.stringify(init)), expected, `host ${host}`);
    }
    const notFound = await fetch(server.url.replace("/mcp", "/other"));
    await notFound.body?.cancel();
    assert.equal(notFound.status, 404);
  } finally {
    await server.stop();
  }
});

async function rawStatus(port: number, host: string, body: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const hostLine = host === "" ? "" : `Host: ${host}\r\n`;
  const request = `POST /mcp HTTP/1.1\r\n${hostLine}Content-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nContent-Length: ${
      new TextEncoder().encode(body).length
    }\r\nConnection: close\r\n\r\n${body}`;
  await conn.write(new TextEncoder().encode(request));
  const buf = new Uint8Array(4096);
  let text = "";
  while (!/^HTTP\/1\.1 \d{3}/.test(text)) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  if (!m) throw new Error(`no status line: ${text}`);
  return Number(m[1]);
}

Deno.test("http: bearer token rule", async () => {
  const token = "s3cret-token-value";
  const server = await HttpServerProcess.start(undefined, [], { PARKOUR_HTTP_TOKEN: token });
  const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
  try {
    const none = await post(server.url, ping);
    assert.equal(none.status, 401);
    assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.equal((await post(server.url, ping, { authorization: "Bearer wrong" })).status, 401);
    assert.equal((await post(server.url, ping, { authorization: `Basic ${token}` })).status, 401);
    const ok = await post(server.url, ping, { authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json?.result, {});
    const client = new Client({ name: "c", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), SHIPPED_TOOLS);
    await client.close();
  } finally {
    await server.stop();
  }
});

Deno.test("http: a non-loopback bind needs PARKOUR_HTTP_TOKEN", async () => {
  const refused = await runCli(["serve", "--http", "--host", "0.0.0.0", "--port", "0"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /PARKOUR_HTTP_TOKEN/);
  assert.equal(refused.stderr.trim().split("\n").length, 1, "one-line error");

  const weak = await runCli(["serve", "--http", "--host", "0.0.0.0", "--port", "0"], {
    PARKOUR_HTTP_TOKEN: "x",
  });
  assert.equal(weak.code, 2);
  assert.match(weak.stderr, /PARKOUR_HTTP_TOKEN is too weak .* at least 32 bytes of entropy/);
  assert.match(weak.stderr, /openssl rand -hex 32/, "says how to make one");
  assert.equal(weak.stderr.trim().split("\n").length, 1, "one-line error");
  for (const guessable of ["tok-" + crypto.randomUUID(), "a".repeat(80)]) {
    const refused = await runCli(["serve", "--http", "--host", "0.0.0.0", "--port", "0"], {
      PARKOUR_HTTP_TOKEN: guessable,
    });
    assert.equal(refused.code, 2, guessable);
  }

  const token = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const server = await HttpServerProcess.start(undefined, ["--host", "0.0.0.0"], {
    PARKOUR_HTTP_TOKEN: token,
  });
  try {
    const url = `http://127.0.0.1:${server.port}/mcp`;
    assert.equal((await post(url, { jsonrpc: "2.0", id: 1, method: "ping" })).status, 401);
    const ok = await post(url, { jsonrpc: "2.0", id: 1, method: "ping" }, {
      authorization: `Bearer ${token}`,
    });
    assert.equal(ok.status, 200);
  } finally {
    await server.stop();
  }
});
