/**
 * Who shares the page cache (`PARKOUR_CACHE_SCOPE`, `serve --cache-scope`),
 * through the HTTP service behind OAuth with a local issuer and a loopback
 * upstream that counts what reaches it, two users (OAuth subjects alice and
 * bob) reading the same URLs over REST and MCP:
 *
 * - shared (the default): the second user's read is a cache hit
 *   (`X-Cache: hit`, `cached: true`) and the upstream sees one request;
 *   two concurrent reads are one fetch;
 * - principal: the second user's read is a miss and fetches again (two
 *   requests upstream), the same user's second read still hits, and
 *   concurrent reads by two users are two fetches (one user's are still
 *   one); across replicas sharing a Redis store the same holds;
 * - a value outside `shared`, `principal` stops the service and the CLI at
 *   start with a message naming the setting.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { envelopeReady, parseFrontmatter } from "../../mod.ts";
import { RESOURCE, startIssuer } from "../support/issuer.ts";
import { HttpServerProcess, runCli } from "../support/process.ts";
import { REDIS_SERVER, type RunningRedis, startRedis } from "../support/stores.ts";

await envelopeReady();

interface Upstream {
  url: string;
  hits(path: string): number;
  close(): Promise<void>;
}

function startUpstream(): Upstream {
  const counts = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    // Slow pages stay in flight long enough for a second request to find the first loading.
    if (path.startsWith("/slow")) await new Promise((r) => setTimeout(r, 1200));
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    return new Response(
      `<!doctype html><html><head><title>Page ${path}</title></head><body><main><article>
<h1>Page ${path}</h1><h2>Tides</h2><p>The page at ${path} says the tide turns twice a day. ${words}.</p>
<h2>Boats</h2><p>Boats leave at dawn from ${path}. ${words}.</p></article></main></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    hits: (path) => counts.get(path) ?? 0,
    close: () => server.shutdown(),
  };
}

async function api(server: HttpServerProcess, page: string, token: string) {
  const base = server.url.replace(/\/mcp$/, "");
  const res = await fetch(`${base}/api?url=${encodeURIComponent(page)}&max_tokens=800`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, cache: res.headers.get("x-cache"), body: await res.text() };
}

/** The frontmatter of a whole-page read over MCP, as `token`'s user. */
async function mcpRead(
  server: HttpServerProcess,
  page: string,
  token: string,
): Promise<Record<string, unknown>> {
  const client = new Client({ name: "cache-scope", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = await client.callTool({
      name: "web_fetch_incisive",
      arguments: { url: page, max_tokens: 800 },
    });
    const text = (result.content as { text: string }[])[0].text;
    assert.ok(!result.isError, text);
    return parseFrontmatter(text) ?? {};
  } finally {
    await client.close();
  }
}

function oauthEnv(issuer: string): Record<string, string> {
  return {
    PARKOUR_AUTH_ISSUER: issuer,
    PARKOUR_AUTH_RESOURCE: RESOURCE,
    MCP_ALLOW_PRIVATE_IPS: "1",
  };
}

Deno.test("cache scope: shared by default, a second user reads the first's page from the cache", async (t) => {
  const upstream = startUpstream();
  const issuer = await startIssuer();
  const server = await HttpServerProcess.start(undefined, [], oauthEnv(issuer.url));
  try {
    const alice = await issuer.sign({ sub: "alice" });
    const bob = await issuer.sign({ sub: "bob" });

    await t.step("REST: bob's read of alice's page is a hit, one request upstream", async () => {
      const page = `${upstream.url}/rest`;
      const first = await api(server, page, alice);
      assert.equal(first.status, 200, first.body);
      assert.equal(first.cache, "miss");
      const second = await api(server, page, bob);
      assert.equal(second.status, 200, second.body);
      assert.equal(second.cache, "hit");
      assert.equal(upstream.hits("/rest"), 1);
    });

    await t.step("MCP: bob's answer says cached: true", async () => {
      const page = `${upstream.url}/mcp`;
      assert.equal((await mcpRead(server, page, alice)).cached, undefined);
      assert.equal((await mcpRead(server, page, bob)).cached, true);
      assert.equal(upstream.hits("/mcp"), 1);
    });

    await t.step("concurrent reads by two users are one fetch", async () => {
      const page = `${upstream.url}/slow-shared`;
      const answers = await Promise.all([api(server, page, alice), api(server, page, bob)]);
      for (const a of answers) assert.equal(a.status, 200, a.body);
      assert.equal(upstream.hits("/slow-shared"), 1);
    });
  } finally {
    await server.stop();
    await issuer.close();
    await upstream.close();
  }
});

Deno.test("cache scope: principal keeps each user's pages apart, a user's own still hit", async (t) => {
  const upstream = startUpstream();
  const issuer = await startIssuer();
  const server = await HttpServerProcess.start(undefined, [], {
    ...oauthEnv(issuer.url),
    PARKOUR_CACHE_SCOPE: "principal",
  });
  try {
    const alice = await issuer.sign({ sub: "alice" });
    const bob = await issuer.sign({ sub: "bob" });

    await t.step("REST: bob's read of alice's page is a miss and a second fetch", async () => {
      const page = `${upstream.url}/rest`;
      const first = await api(server, page, alice);
      assert.equal(first.status, 200, first.body);
      assert.equal(first.cache, "miss");
      const second = await api(server, page, bob);
      assert.equal(second.status, 200, second.body);
      assert.equal(second.cache, "miss");
      assert.equal(second.body, first.body, "the same page, read twice");
      assert.equal(upstream.hits("/rest"), 2);
      // Each user's own page is still cached for them.
      assert.equal((await api(server, page, alice)).cache, "hit");
      assert.equal((await api(server, page, bob)).cache, "hit");
      assert.equal(upstream.hits("/rest"), 2);
    });

    await t.step("MCP: no cached fact for bob; alice's second read is cached", async () => {
      const page = `${upstream.url}/mcp`;
      assert.equal((await mcpRead(server, page, alice)).cached, undefined);
      assert.equal((await mcpRead(server, page, bob)).cached, undefined);
      assert.equal(upstream.hits("/mcp"), 2);
      assert.equal((await mcpRead(server, page, alice)).cached, true);
      assert.equal(upstream.hits("/mcp"), 2);
    });

    await t.step("concurrent reads: two users are two fetches, one user's still one", async () => {
      const apart = `${upstream.url}/slow-apart`;
      const answers = await Promise.all([api(server, apart, alice), api(server, apart, bob)]);
      for (const a of answers) assert.equal(a.status, 200, a.body);
      assert.deepEqual(answers.map((a) => a.cache), ["miss", "miss"]);
      assert.equal(upstream.hits("/slow-apart"), 2);
      const joined = `${upstream.url}/slow-joined`;
      const same = await Promise.all([api(server, joined, alice), api(server, joined, alice)]);
      for (const a of same) assert.equal(a.status, 200, a.body);
      assert.equal(upstream.hits("/slow-joined"), 1);
    });
  } finally {
    await server.stop();
    await issuer.close();
    await upstream.close();
  }
});

Deno.test({
  name: "cache scope: principal holds across replicas sharing a Redis store (--cache-scope)",
  ignore: REDIS_SERVER === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const upstream = startUpstream();
    const issuer = await startIssuer();
    let redis: RunningRedis | undefined;
    const replicas: HttpServerProcess[] = [];
    try {
      redis = await startRedis();
      const env = { ...oauthEnv(issuer.url), PARKOUR_CACHE: redis.url };
      for (let i = 0; i < 2; i++) {
        replicas.push(
          await HttpServerProcess.start(undefined, ["--cache-scope", "principal"], env),
        );
      }
      const [a, b] = replicas;
      const alice = await issuer.sign({ sub: "alice" });
      const bob = await issuer.sign({ sub: "bob" });
      const page = `${upstream.url}/replicated`;
      assert.equal((await api(a, page, alice)).cache, "miss");
      // Bob on the other replica: not alice's entry in the store.
      assert.equal((await api(b, page, bob)).cache, "miss");
      assert.equal(upstream.hits("/replicated"), 2);
      // Alice on the other replica: her own entry, from the store.
      assert.equal((await api(b, page, alice)).cache, "hit");
      assert.equal(upstream.hits("/replicated"), 2);
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
      await redis?.stop();
      await issuer.close();
      await upstream.close();
    }
  },
});

Deno.test("cache scope: a bad value is refused at start, naming the setting", async () => {
  const served = await runCli(["serve", "--http", "--port", "0"], {
    PARKOUR_CACHE_SCOPE: "per-user",
  });
  assert.equal(served.code, 2, served.stderr);
  assert.match(
    served.stderr,
    /invalid PARKOUR_CACHE_SCOPE 'per-user'; valid values: shared, principal/,
  );
  const flagged = await runCli(["serve", "--http", "--port", "0", "--cache-scope", "everyone"]);
  assert.equal(flagged.code, 2, flagged.stderr);
  assert.match(flagged.stderr, /--cache-scope 'everyone'.*shared, principal/);
  // The page commands check it at start too, before reading anything.
  const fetched = await runCli(["fetch", "data:text/html,<h1>x</h1>"], {
    PARKOUR_CACHE_SCOPE: "nobody",
  });
  assert.equal(fetched.code, 2, fetched.stderr);
  assert.match(fetched.stderr, /PARKOUR_CACHE_SCOPE/);
  assert.equal(fetched.stdout, "");
});
