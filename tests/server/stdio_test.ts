/**
 * MCP over stdio, end to end: the real main.ts process, driven by the SDK v2
 * client in both eras and by raw JSON-RPC lines for the edge cases.
 */
import assert from "node:assert/strict";
import deno from "../../deno.json" with { type: "json" };
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  childEnv,
  initializeParams,
  launch,
  MAIN,
  RawServer,
  SHIPPED_TOOLS,
} from "../support/process.ts";

const MODERN = "2026-07-28";
const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
const meta = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1" },
  ...extra,
});

function transport(): StdioClientTransport {
  const { command, args } = launch(MAIN);
  return new StdioClientTransport({ command, args, env: childEnv(), stderr: "pipe" });
}

Deno.test("stdio: SDK v2 client in the 2025 era lists the tools", async () => {
  const client = new Client({ name: "legacy-client", version: "1.0.0" });
  await client.connect(transport());
  try {
    assert.equal(client.getServerVersion()?.name, "parkour-mcp");
    assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), SHIPPED_TOOLS);
    await client.ping();
  } finally {
    await client.close();
  }
});

Deno.test("stdio: SDK v2 client pinned to 2026-07-28 lists the tools", async () => {
  const client = new Client(
    { name: "modern-client", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(transport());
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(client.getServerVersion()?.name, "parkour-mcp");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), SHIPPED_TOOLS);
  } finally {
    await client.close();
  }
});

Deno.test("stdio: SDK v2 client in auto mode negotiates the modern era", async () => {
  const client = new Client(
    { name: "auto-client", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(transport());
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), SHIPPED_TOOLS);
  } finally {
    await client.close();
  }
});

Deno.test("stdio: initialize echoes each legacy version and falls back to 2025-11-25", async () => {
  const server = new RawServer();
  try {
    for (const [i, version] of [...LEGACY_VERSIONS, "1999-01-01", "2026-07-28"].entries()) {
      const reply = await server.request({
        id: i + 1,
        method: "initialize",
        params: initializeParams(version),
      });
      const result = reply.result as Record<string, unknown>;
      const expected = LEGACY_VERSIONS.includes(version) ? version : "2025-11-25";
      assert.equal(result.protocolVersion, expected, `asked for ${version}`);
      assert.equal((result.serverInfo as { name: string }).name, "parkour-mcp");
      assert.ok((result.capabilities as Record<string, unknown>).tools);
    }
  } finally {
    await server.close();
  }
});

Deno.test("stdio: server/discover answers under 2026-07-28 and -32601 without metadata", async () => {
  const server = new RawServer();
  try {
    const modern = await server.request({
      id: "d1",
      method: "server/discover",
      params: { _meta: meta() },
    });
    const result = modern.result as Record<string, unknown>;
    assert.deepEqual(result.supportedVersions, [MODERN]);
    assert.equal(result.resultType, "complete");
    assert.equal(result.ttlMs, 3_600_000);
    assert.equal(result.cacheScope, "private");
    assert.ok(result.capabilities);
    const info =
      (result._meta as Record<string, { name: string }>)["io.modelcontextprotocol/serverInfo"];
    assert.equal(info.name, "parkour-mcp");

    const legacy = await server.request({ id: "d2", method: "server/discover" });
    assert.equal((legacy.error as { code: number }).code, -32601);

    const list = await server.request({
      id: "l1",
      method: "tools/list",
      params: { _meta: meta() },
    });
    const listResult = list.result as Record<string, unknown>;
    assert.deepEqual((listResult.tools as { name: string }[]).map((t) => t.name), SHIPPED_TOOLS);
    assert.equal(listResult.resultType, "complete");
    assert.equal(listResult.ttlMs, 3_600_000);
    assert.equal(listResult.cacheScope, "private");
  } finally {
    await server.close();
  }
});

Deno.test("stdio: -32022 with data on every request, also after a supported one", async () => {
  const server = new RawServer();
  try {
    const ok = await server.request({ id: 1, method: "tools/list", params: { _meta: meta() } });
    assert.ok(ok.result);
    for (const [i, bad] of ["2027-01-01", "2025-11-25", "", "draft"].entries()) {
      const reply = await server.request({
        id: 10 + i,
        method: "tools/list",
        params: { _meta: meta({ "io.modelcontextprotocol/protocolVersion": bad }) },
      });
      const error = reply.error as {
        code: number;
        data: { supported: string[]; requested: string };
      };
      assert.equal(error.code, -32022, `version ${JSON.stringify(bad)}`);
      assert.deepEqual(error.data, { supported: [MODERN], requested: bad });
    }
    const again = await server.request({ id: 2, method: "tools/list", params: { _meta: meta() } });
    assert.ok(again.result, "a supported request still works afterwards");
  } finally {
    await server.close();
  }
});

Deno.test("stdio: a modern request without clientCapabilities gets -32602", async () => {
  const server = new RawServer();
  try {
    const reply = await server.request({
      id: 1,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } },
    });
    const error = reply.error as { code: number; message: string };
    assert.equal(error.code, -32602);
    assert.match(error.message, /clientCapabilities/);
  } finally {
    await server.close();
  }
});

Deno.test("stdio: both eras on one connection, interleaved", async () => {
  const server = new RawServer();
  try {
    const modern1 = await server.request({
      id: 1,
      method: "server/discover",
      params: { _meta: meta() },
    });
    assert.ok(modern1.result);
    const init = await server.request({
      id: 2,
      method: "initialize",
      params: initializeParams("2025-06-18"),
    });
    assert.equal((init.result as { protocolVersion: string }).protocolVersion, "2025-06-18");
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const legacyList = await server.request({ id: 3, method: "tools/list" });
    const legacyResult = legacyList.result as Record<string, unknown>;
    assert.deepEqual(Object.keys(legacyResult), ["tools"], "2025 results carry no modern fields");
    assert.deepEqual((legacyResult.tools as { name: string }[]).map((t) => t.name), SHIPPED_TOOLS);
    const modernList = await server.request({
      id: 4,
      method: "tools/list",
      params: { _meta: meta() },
    });
    assert.equal((modernList.result as { resultType: string }).resultType, "complete");
    const ping = await server.request({ id: 5, method: "ping" });
    assert.deepEqual(ping.result, {});
    const unknown = await server.request({
      id: 6,
      method: "no/such/method",
      params: { _meta: meta() },
    });
    assert.equal((unknown.error as { code: number }).code, -32601);
  } finally {
    const { code } = await server.close();
    assert.equal(code, 0);
  }
});

Deno.test("stdio: malformed lines get JSON-RPC errors and the server keeps serving", async () => {
  const server = new RawServer();
  try {
    const cases: [string, number, string | number | null][] = [
      ["{not json", -32700, null],
      ['{"jsonrpc":"2.0","id":1,', -32700, null],
      ["[1,2,3]", -32600, null],
      ['"just a string"', -32600, null],
      ["42", -32600, null],
      ['{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 7],
      ['{"jsonrpc":"2.0","id":8,"method":5}', -32600, 8],
      ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, null],
      ['{"jsonrpc":"2.0","id":9,"method":"tools/list","params":[1]}', -32600, 9],
      ['{"jsonrpc":"2.0","id":10}', -32600, 10],
    ];
    for (const [line] of cases) await server.send(line);
    await server.send("\u0000\u0001\u00ff garbage \ud800");
    const ok = await server.request({ id: "after", method: "ping" });
    assert.deepEqual(ok.result, {});
    const errors = server.lines.map((l) => JSON.parse(l)).filter((m) => m.error);
    for (const [line, code, id] of cases) {
      const match = errors.find((e) => e.error.code === code && e.id === id);
      assert.ok(match, `no error ${code} (id ${id}) for ${line}`);
    }
    assert.ok(errors.length >= cases.length + 1);
  } finally {
    await server.close();
  }
});

Deno.test("stdio: a 50 MB line is refused with its id and the server keeps serving", async () => {
  const server = new RawServer();
  try {
    const head =
      '{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"x","arguments":{"blob":"';
    await server.write(head);
    const chunk = "a".repeat(1024 * 1024);
    for (let i = 0; i < 50; i++) await server.write(chunk);
    await server.write('"}}}\n');
    const reply = await server.waitFor((m) => m.id === "huge", 60000);
    const error = reply.error as { code: number; message: string };
    assert.equal(error.code, -32600);
    assert.match(error.message, /exceeds/);
    const ok = await server.request({ id: "next", method: "ping" });
    assert.deepEqual(ok.result, {});
  } finally {
    await server.close();
  }
});

Deno.test("stdio: stdout carries only protocol lines; stdin EOF ends the process", async () => {
  const server = new RawServer();
  await server.request({ id: 1, method: "tools/list", params: { _meta: meta() } });
  await server.request({
    id: 2,
    method: "initialize",
    params: initializeParams("2025-11-25"),
  });
  const { code, lines } = await server.close();
  assert.equal(code, 0);
  assert.ok(lines.length >= 2);
  for (const line of lines) {
    const msg = JSON.parse(line);
    assert.equal(msg.jsonrpc, "2.0", `non-protocol line on stdout: ${line}`);
  }
});

Deno.test("stdio: running the package's program entry (./cli, as jsr:@parkour/mcp/cli does) serves MCP", async () => {
  const entry = (deno.exports as Record<string, string>)["./cli"];
  const server = new RawServer(MAIN.replace(/main\.ts$/, entry.replace(/^\.\//, "")));
  try {
    const reply = await server.request({
      id: 1,
      method: "server/discover",
      params: { _meta: meta() },
    });
    assert.deepEqual((reply.result as { supportedVersions: string[] }).supportedVersions, [MODERN]);
  } finally {
    assert.equal((await server.close()).code, 0);
  }
});
