/**
 * Cancelling a call, through real clients (SDK v2 in the 2025 era and
 * pinned to 2026-07-28, SDK v1), over stdio and over HTTP:
 *
 * - on a slow upstream, the upstream sees its connection closed long before
 *   the body would have ended;
 * - during a large conversion (a made-up page of 12,000 sections, converted
 *   in a worker), no result arrives for the cancelled call, the server's
 *   CPU goes idle (once the terminated worker's task ends: Deno does not
 *   interrupt it, see lib/content/workers/pool.ts), and the page is not
 *   cached (asking again fetches it again).
 *
 * The server runs with `--allow-read` of the checkout, which lets its
 * conversion workers load (see lib/content/workers/pool.ts).
 */
import assert from "node:assert/strict";
import {
  CLIENT_KINDS,
  type ClientKind,
  connectClient,
  largeHtml,
  type TestClient,
  untilIdle,
  Upstream,
} from "../support/clients.ts";
import {
  HttpServerProcess,
  initializeParams,
  MAIN,
  RawServer,
  ROOT_DIR,
} from "../support/process.ts";

const FLAGS = [`--allow-read=${ROOT_DIR}`];
const ENV = { MCP_ALLOW_PRIVATE_IPS: "1" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the client received a tool result after `since` messages. */
function lateResult(client: TestClient, since: number): boolean {
  return client.received.slice(since).some((m) =>
    typeof m.result === "object" && m.result !== null && "content" in m.result
  );
}

async function waitFor(test: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (test()) return true;
    await sleep(25);
  }
  return test();
}

async function cancelScenarios(
  client: TestClient,
  pid: number,
  upstream: Upstream,
  label: string,
): Promise<void> {
  // 1. A slow upstream: 40 pieces, 150 ms apart (6 s); cancel after about a second.
  {
    const id = `${label}-slow`;
    const abort = new AbortController();
    const call = client.call("web_fetch_sections", {
      url: `${upstream.url}/page?slow=150&id=${id}`,
    }, { signal: abort.signal });
    call.catch(() => {});
    assert.ok(await waitFor(() => upstream.record(id).hits > 0, 15_000), `${label}: no fetch`);
    await sleep(1000);
    const before = client.received.length;
    abort.abort();
    const cancelledAt = performance.now();
    await assert.rejects(call);
    assert.ok(
      await waitFor(() => upstream.record(id).closedAt !== undefined, 4000),
      `${label}: the upstream connection stayed open after the cancel`,
    );
    assert.equal(upstream.record(id).finishedAt, undefined, `${label}: the download ran on`);
    assert.ok(upstream.record(id).closedAt! - cancelledAt < 4000);
    await sleep(300);
    assert.ok(!lateResult(client, before), `${label}: a result arrived after the cancel`);
  }
  // 2. A large conversion: cancel 300 ms after the last byte arrived.
  {
    const id = `${label}-big`;
    const abort = new AbortController();
    const url = `${upstream.url}/page?id=${id}`;
    const call = client.call("web_fetch_sections", { url }, { signal: abort.signal });
    call.catch(() => {});
    assert.ok(
      await waitFor(() => upstream.record(id).finishedAt !== undefined, 30_000),
      `${label}: the page was not downloaded`,
    );
    await sleep(300);
    const before = client.received.length;
    abort.abort();
    await assert.rejects(call);
    const idle = await untilIdle(pid);
    assert.ok(idle !== undefined, `${label}: the CPU stayed busy after the cancel`);
    await sleep(500);
    assert.ok(!lateResult(client, before), `${label}: a result arrived after the cancel`);
    // The cancelled conversion left nothing in the cache: the page is fetched again.
    const again = await client.call("web_fetch_sections", { url });
    assert.ok(!again.isError, JSON.stringify(again.content).slice(0, 300));
    assert.equal(upstream.record(id).hits, 2, `${label}: the cancelled conversion was cached`);
  }
}

const upstream = new Upstream(largeHtml(12_000));

for (const kind of CLIENT_KINDS) {
  Deno.test(`cancel: ${kind} over stdio stops the download and the conversion`, async () => {
    const client = await connectClient(kind, { env: ENV, flags: FLAGS });
    try {
      assert.ok(client.pid, "the stdio transport knows the server's pid");
      await cancelScenarios(client, client.pid, upstream, `stdio-${kind}`);
      await client.healthy();
    } finally {
      await client.close();
    }
  });
}

Deno.test("cancel: every client over HTTP stops the download and the conversion", async (t) => {
  const server = await HttpServerProcess.start(MAIN, [], ENV, FLAGS);
  try {
    for (const kind of CLIENT_KINDS as ClientKind[]) {
      await t.step(kind, async () => {
        const client = await connectClient(kind, { url: server.url });
        try {
          await cancelScenarios(client, server.pid, upstream, `http-${kind}`);
          await client.healthy();
        } finally {
          await client.close();
        }
      });
    }
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

Deno.test("cancel: one HTTP client cannot cancel another's request", async () => {
  const server = await HttpServerProcess.start(MAIN, [], ENV, FLAGS);
  try {
    const id = "scoped-slow";
    // Client A's request, with a token-free scope of its own (a session header of its own).
    const call = fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "client-a",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "web_fetch_sections",
          arguments: { url: `${upstream.url}/page?slow=60&id=${id}` },
        },
      }),
    }).then((r) => r.text());
    assert.ok(await waitFor(() => upstream.record(id).hits > 0, 15_000));
    // Client B names the same id.
    const other = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "client-b",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 7, reason: "not mine" },
      }),
    });
    await other.body?.cancel();
    assert.equal(other.status, 202);
    const text = await call;
    assert.equal(upstream.record(id).closedAt, undefined, "B's cancel stopped A's download");
    assert.match(text, /"id":7/);
    assert.match(text, /"result"/);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

Deno.test("cancel: after a cancelled call, stdio exits as soon as stdin ends", async () => {
  const server = new RawServer(MAIN, [], ENV, FLAGS);
  let closed = false;
  try {
    await server.request({
      id: 1,
      method: "initialize",
      params: initializeParams("2025-11-25"),
    });
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const id = "stdio-exit";
    await server.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "web_fetch_sections",
        arguments: { url: `${upstream.url}/page?slow=200&id=${id}` },
      },
    });
    assert.ok(await waitFor(() => upstream.record(id).hits > 0, 15_000));
    await server.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 2, reason: "user" },
    });
    const start = performance.now();
    const end = await server.close();
    closed = true;
    assert.equal(end.code, 0);
    // The drain no longer waits for the cancelled call (it used to wait 120 s).
    assert.ok(performance.now() - start < 10_000, "the process lingered after stdin ended");
    assert.ok(!end.lines.some((l) => JSON.parse(l).id === 2), "the cancelled call was answered");
    assert.ok(await waitFor(() => upstream.record(id).closedAt !== undefined, 4000));
  } finally {
    if (!closed) await server.kill();
  }
});

Deno.test({
  name: "cancel: teardown",
  fn: async () => await upstream.close(),
});
