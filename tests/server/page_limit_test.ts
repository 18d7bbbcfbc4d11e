/**
 * One page size limit for every view, settable per deployment: the
 * whole-page view of a 7 MB page answers on the first request exactly as it
 * does after another view cached the page (it used to answer 502 "too
 * large" until a section or outline request had fetched it under a larger
 * cap), and a limit set in the environment (`PARKOUR_MAX_PAGE_MB`) or with
 * the CLI flag is honoured, with an error that names the setting. Real
 * processes (`serve --http`, the CLI) reading pages from an upstream this
 * test serves on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { HttpServerProcess, runCli } from "../support/process.ts";
import { sizedPage } from "../support/sized_pages.ts";

const BIG = sizedPage(7_000_000, 7);
const MEDIUM = sizedPage(2_000_000, 2);
const SMALL = sizedPage(300_000, 3);

function upstream(): { origin: string; close: () => Promise<void> } {
  const pages: Record<string, string> = { "/big": BIG, "/medium": MEDIUM, "/small": SMALL };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const body = pages[new URL(req.url).pathname];
    return body === undefined
      ? new Response("not here", { status: 404 })
      : new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

async function api(
  server: HttpServerProcess,
  path: string,
  params: Record<string, string>,
): Promise<{ status: number; cache: string | null; text: string }> {
  const url = new URL(path, server.url);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await fetch(url);
  return { status: res.status, cache: res.headers.get("x-cache"), text: await res.text() };
}

Deno.test("page limit: the whole view of a 7 MB page answers first as it does after another view", async () => {
  const up = upstream();
  const server = await HttpServerProcess.start(undefined, [], { MCP_ALLOW_PRIVATE_IPS: "1" });
  try {
    // First request for the page: the whole-page view.
    const first = await api(server, "/api", { url: `${up.origin}/big?a`, max_tokens: "1500" });
    assert.equal(first.status, 200, first.text.slice(0, 300));
    assert.equal(first.cache, "miss");
    // The same page under another URL, outlined first, then the whole-page view from the cache.
    const outline = await api(server, "/api/sections", { url: `${up.origin}/big?b` });
    assert.equal(outline.status, 200, outline.text.slice(0, 300));
    const after = await api(server, "/api", { url: `${up.origin}/big?b`, max_tokens: "1500" });
    assert.equal(after.status, 200, after.text.slice(0, 300));
    assert.equal(after.cache, "hit");
    assert.ok(first.text.length > 1000, "an answer with text");
    assert.equal(after.text.replaceAll("?b", "?a"), first.text);
  } finally {
    await server.stop();
    await up.close();
  }
});

Deno.test("page limit: PARKOUR_MAX_PAGE_MB is honoured by every view and named when it refuses", async () => {
  const up = upstream();
  const server = await HttpServerProcess.start(undefined, [], {
    MCP_ALLOW_PRIVATE_IPS: "1",
    PARKOUR_MAX_PAGE_MB: "1",
  });
  try {
    const small = await api(server, "/api", { url: `${up.origin}/small`, max_tokens: "500" });
    assert.equal(small.status, 200, small.text.slice(0, 300));
    for (
      const [path, params] of [
        ["/api", {}],
        ["/api", { section: "Chapter 1" }],
        ["/api/sections", {}],
      ] as const
    ) {
      const r = await api(server, path, { url: `${up.origin}/medium`, ...params });
      assert.equal(r.status, 502, `${path} ${JSON.stringify(params)}: ${r.text.slice(0, 300)}`);
      const error = JSON.parse(r.text);
      assert.equal(error.kind, "too_large");
      assert.match(error.error, /1 MiB/);
      assert.match(error.error, /PARKOUR_MAX_PAGE_MB/);
    }
  } finally {
    await server.stop();
    await up.close();
  }
});

Deno.test("page limit: the CLI flag sets it, and a malformed value is refused naming the setting", async () => {
  const up = upstream();
  try {
    const env = { MCP_ALLOW_PRIVATE_IPS: "1" };
    const refused = await runCli(["fetch", `${up.origin}/medium`, "--max-page-mb", "1"], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout + refused.stderr, /1 MiB/);
    assert.match(refused.stdout + refused.stderr, /--max-page-mb/);
    const read = await runCli(
      ["fetch", `${up.origin}/medium`, "--max-page-mb", "3", "--max-tokens", "300"],
      env,
    );
    assert.equal(read.code, 0, read.stderr);
    const bad = await runCli(["fetch", `${up.origin}/small`], {
      ...env,
      PARKOUR_MAX_PAGE_MB: "lots",
    });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /PARKOUR_MAX_PAGE_MB 'lots'/);
  } finally {
    await up.close();
  }
});
