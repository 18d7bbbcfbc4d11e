/**
 * Quiet logs: a client that drops its connection in the middle of a call
 * (over HTTP in either era, or over stdio by going away) leaves at most one
 * line at info level or below on stderr: no error, no stack trace, and never
 * Deno's warning about the legacy `request.signal` behaviour (deno.json's
 * `unstable` list has `no-legacy-abort`, and so do the launch lines).
 */
import assert from "node:assert/strict";
import { largeHtml, Upstream } from "../support/clients.ts";
import { childEnv, launch, ROOT_DIR } from "../support/process.ts";

const ENV = { MCP_ALLOW_PRIVATE_IPS: "1" };
const FLAGS = [`--allow-read=${ROOT_DIR}`];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function assertQuiet(stderr: string): void {
  assert.doesNotMatch(stderr, /\] error:/, stderr);
  assert.doesNotMatch(stderr, /^\s+at /m, `a stack trace: ${stderr}`);
  assert.doesNotMatch(stderr, /legacy behavior|no-legacy-abort/, stderr);
}

Deno.test("logs: HTTP clients dropping their connection mid-call, both eras", async () => {
  const upstream = new Upstream(largeHtml(2_000));
  const { command, args } = launch(undefined, ["serve", "--http", "--port", "0"], FLAGS);
  const child = new Deno.Command(command, {
    args,
    env: childEnv(ENV),
    // Only this environment: other test files set variables of the shared process (PARKOUR_REPLAY_DIR).
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  let url = "";
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server did not start: ${stderr}`);
    stderr += value;
    url = /serving MCP at (\S+)/.exec(stderr)?.[1] ?? "";
  }
  const rest = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += value;
    }
  })();
  try {
    const modernMeta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    for (const era of ["2025", "2026"]) {
      const abort = new AbortController();
      const target = `${upstream.url}/page?slow=100&id=drop-${era}`;
      const modern = era === "2026";
      const res = fetch(url, {
        method: "POST",
        signal: abort.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(modern && {
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "web_fetch_sections",
          }),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "web_fetch_sections",
            arguments: { url: target },
            ...(modern && { _meta: modernMeta }),
          },
        }),
      });
      let early = "";
      res.then(async (r) => {
        if (!r.headers.get("content-type")?.includes("event-stream")) early = await r.text();
      }).catch(() => {});
      const record = () => upstream.record(`drop-${era}`);
      for (let i = 0; record().hits === 0; i++) {
        assert.ok(i < 600 && !early, `${era}: the call never reached the upstream: ${early}`);
        await sleep(25);
      }
      await sleep(500);
      abort.abort();
      if (modern) {
        // As the SDK client does on abort: it also names the call it gave up. (A bare disconnect
        // before the answer starts is not seen by Deno's server until the answer; see the report.)
        const cancel = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "notifications/cancelled",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: 1, _meta: modernMeta },
          }),
        });
        await cancel.body?.cancel();
      }
      for (let i = 0; record().closedAt === undefined; i++) {
        assert.ok(i < 400, `${era}: the upstream connection stayed open: ${stderr}`);
        await sleep(25);
      }
      await sleep(500);
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await rest;
    await upstream.close();
  }
  assertQuiet(stderr);
});

Deno.test("logs: a stdio client that goes away mid-call", async () => {
  const upstream = new Upstream(largeHtml(500));
  const { command, args } = launch(undefined, [], FLAGS);
  const child = new Deno.Command(command, {
    args,
    env: childEnv(ENV),
    // Only this environment: other test files set variables of the shared process (PARKOUR_REPLAY_DIR).
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  await send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: {
      name: "web_fetch_sections",
      arguments: { url: `${upstream.url}/page?slow=25&id=go` },
    },
  });
  for (let i = 0; upstream.record("go").hits === 0; i++) {
    assert.ok(i < 600, "the call never reached the upstream");
    await sleep(25);
  }
  // The client goes: it stops reading its end of stdout and closes stdin.
  await child.stdout.cancel();
  await writer.close();
  const status = await child.status;
  await upstream.close();
  assert.equal(status.code, 0);
  assertQuiet(await stderr);
});
