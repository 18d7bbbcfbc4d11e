/**
 * Stateless replicas: three `serve --http` processes on 127.0.0.1 sharing
 * one redis-server (page cache, load locks, request slots) and one
 * PostgreSQL (shelves), behind OAuth with a local issuer, all started here.
 * The upstream is a server of the test that counts what reaches it.
 *
 * Ignored, with the reason printed, where redis-server or PostgreSQL is not
 * installed (`.ci/run` installs both from Debian).
 */
import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createClient } from "redis";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { HttpServerProcess } from "../support/process.ts";
import {
  NO_STORES,
  type RunningPostgres,
  type RunningRedis,
  startPostgres,
  startRedis,
} from "../support/stores.ts";

const RESOURCE = "http://localhost:9/mcp";
const SPACING_MS = 400;

interface Upstream {
  url: string;
  hits(path: string): number;
  arrivals(prefix: string): number[];
  close(): Promise<void>;
}

function article(path: string): string {
  const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(" ");
  return `<!doctype html><html><head><title>Page ${path}</title></head><body><main><article>
<h1>Page ${path}</h1><h2>First part</h2><p>The page at ${path} says: ${words}.</p>
<h2>Second part</h2><p>More text about ${path}, enough to be an article. ${words}.</p>
</article></main></body></html>`;
}

function startUpstream(): Upstream {
  const counts = new Map<string, number>();
  const times: { path: string; at: number }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const n = (counts.get(path) ?? 0) + 1;
    counts.set(path, n);
    times.push({ path, at: performance.now() });
    if (path.startsWith("/slow")) await new Promise((r) => setTimeout(r, 1500));
    if (path.startsWith("/stall") && n === 1) {
      // The first load stalls (its replica is killed meanwhile); later ones answer.
      await new Promise((r) => setTimeout(r, 4000));
    }
    if (path.startsWith("/busy") && n === 1) {
      return new Response("slow down", { status: 429, headers: { "retry-after": "2" } });
    }
    return new Response(article(path), { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    hits: (path) => counts.get(path) ?? 0,
    arrivals: (prefix) => times.filter((t) => t.path.startsWith(prefix)).map((t) => t.at),
    close: () => server.shutdown(),
  };
}

async function startIssuer() {
  const keys = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k", alg: "ES256" };
  let url = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/.well-known/oauth-authorization-server") {
      return Response.json({ issuer: url, jwks_uri: `${url}/jwks` });
    }
    return path === "/jwks" ? Response.json({ keys: [jwk] }) : new Response("", { status: 404 });
  });
  url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  const token = (sub: string) =>
    new SignJWT({ scope: "parkour" }).setProtectedHeader({ alg: "ES256", kid: "k" })
      .setIssuer(url).setAudience(RESOURCE).setSubject(sub).setExpirationTime("10m")
      .sign(keys.privateKey);
  return { url, token, close: () => server.shutdown() };
}

async function api(replica: HttpServerProcess, page: string, token: string) {
  const base = replica.url.replace(/\/mcp$/, "");
  const res = await fetch(`${base}/api?url=${encodeURIComponent(page)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, cache: res.headers.get("x-cache"), body: await res.text() };
}

async function shelfCall(
  replica: HttpServerProcess,
  token: string,
  args: Record<string, unknown>,
): Promise<string> {
  const client = new Client({ name: "replica-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(replica.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: "research_shelf", arguments: args });
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "")
      .join("\n");
    assert.ok(!result.isError, text);
    return text;
  } finally {
    await client.close();
  }
}

function record(doi: string, title: string) {
  return { doi, title, authors: ["Writer, Ada"], year: 2024, source_tool: "doi", kind: "article" };
}

Deno.test({
  name:
    "replicas: one shared cache, one fetch per cold page, fleet-wide spacing, shelves per principal",
  ignore: NO_STORES !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    let redis: RunningRedis | undefined;
    let pg: RunningPostgres | undefined;
    const upstream = startUpstream();
    const issuer = await startIssuer();
    const replicas: HttpServerProcess[] = [];
    try {
      [redis, pg] = await Promise.all([startRedis(), startPostgres()]);
      const env = {
        PARKOUR_CACHE: redis.url,
        PARKOUR_SHELF: pg.url,
        PARKOUR_AUTH_ISSUER: issuer.url,
        PARKOUR_AUTH_RESOURCE: RESOURCE,
        PARKOUR_HOST_INTERVALS: `127.0.0.1=${SPACING_MS}`,
        MCP_ALLOW_PRIVATE_IPS: "1",
        // The shelf's writing actions (import) are off unless enabled.
        PARKOUR_ENABLE_MUTATING_TOOLS: "1",
      };
      for (let i = 0; i < 3; i++) replicas.push(await HttpServerProcess.start(undefined, [], env));
      const [a, b, c] = replicas;
      const alice = await issuer.token("alice");
      const bob = await issuer.token("bob");

      await t.step("a page loaded through one replica is a cache hit on another", async () => {
        const page = `${upstream.url}/article`;
        const first = await api(a, page, alice);
        assert.equal(first.status, 200, first.body);
        assert.equal(first.cache, "miss");
        const second = await api(b, page, alice);
        assert.equal(second.status, 200);
        assert.equal(second.cache, "hit");
        assert.equal(second.body, first.body, "the other replica serves the same text");
        assert.match(second.body, /The page at \/article says/);
        assert.equal(upstream.hits("/article"), 1);
        const health = await (await fetch(a.url.replace(/\/mcp$/, "/healthz"))).json();
        assert.deepEqual(health.stores, {
          cache: { kind: "redis", ok: true },
          shelf: { kind: "postgres", ok: true },
        });
      });

      await t.step("nine concurrent cold requests over three replicas fetch once", async () => {
        const page = `${upstream.url}/slow-cold`;
        const answers = await Promise.all(
          Array.from({ length: 9 }, (_, i) => api(replicas[i % 3], page, alice)),
        );
        for (const answer of answers) assert.equal(answer.status, 200, answer.body);
        assert.equal(new Set(answers.map((x) => x.body)).size, 1);
        assert.equal(upstream.hits("/slow-cold"), 1);
      });

      await t.step("request spacing per host holds across replicas", async () => {
        await Promise.all(
          Array.from(
            { length: 6 },
            (_, i) => api(replicas[i % 3], `${upstream.url}/spaced-${i}`, alice),
          ),
        );
        const at = upstream.arrivals("/spaced-").sort((x, y) => x - y);
        assert.equal(at.length, 6);
        const gaps = at.slice(1).map((x, i) => x - at[i]);
        // The store's clock spaces the slots exactly; arrival adds jitter (a loaded machine wakes
        // one sleeper late and the next on time), so: no two within half the spacing (replicas
        // spacing alone send pairs together), and the six spread over five spacings.
        const shown = `gaps ${gaps.map(Math.round).join(", ")} ms`;
        assert.ok(Math.min(...gaps) >= SPACING_MS / 2, shown);
        assert.ok(at[5] - at[0] >= 5 * SPACING_MS - 100, shown);
      });

      await t.step("a 429 with Retry-After holds back every replica", async () => {
        const busy = api(a, `${upstream.url}/busy`, alice);
        while (upstream.hits("/busy") === 0) await new Promise((r) => setTimeout(r, 20));
        const first = upstream.arrivals("/busy")[0];
        await new Promise((r) => setTimeout(r, 300));
        const other = await api(b, `${upstream.url}/after-busy`, alice);
        assert.equal(other.status, 200);
        const later = upstream.arrivals("/after-busy")[0];
        assert.ok(
          later - first >= 1800,
          `the other replica waited ${Math.round(later - first)} ms`,
        );
        assert.equal((await busy).status, 200);
      });

      await t.step(
        "shelves of two principals stay apart and lose nothing under concurrent writers",
        async () => {
          const writes = [];
          for (let i = 0; i < 10; i++) {
            for (const [who, token] of [["alice", alice], ["bob", bob]] as const) {
              const data = JSON.stringify({
                format: "parkour-shelf",
                version: 1,
                active: {
                  [`10.5555/${who}.${i}`]: record(`10.5555/${who}.${i}`, `${who} paper ${i}`),
                },
              });
              writes.push(
                shelfCall(replicas[(i + (who === "bob" ? 1 : 0)) % 3], token, {
                  action: "import",
                  data,
                }),
              );
            }
          }
          await Promise.all(writes);
          for (
            const [who, token, other] of [["alice", alice, "bob"], ["bob", bob, "alice"]] as const
          ) {
            const text = await shelfCall(c, token, { action: "export", format: "json" });
            for (let i = 0; i < 10; i++) {
              assert.ok(text.includes(`10.5555/${who}.${i}`), `${who} keeps paper ${i}`);
            }
            assert.ok(!text.includes(`10.5555/${other}.`), `${who} sees none of ${other}'s papers`);
          }
        },
      );

      await t.step("a replica killed mid-load leaves no stuck lock", async () => {
        const page = `${upstream.url}/stall`;
        const doomed = api(c, page, alice).catch(() => undefined);
        while (upstream.hits("/stall") === 0) await new Promise((r) => setTimeout(r, 20));
        await c.kill();
        await doomed;
        const started = performance.now();
        const answer = await api(a, page, alice);
        const waited = performance.now() - started;
        assert.equal(answer.status, 200, answer.body);
        assert.match(answer.body, /The page at \/stall says/);
        assert.equal(upstream.hits("/stall"), 2, "the survivor loaded it after the lock lapsed");
        assert.ok(waited < 15_000, `answered after ${Math.round(waited)} ms`);
        const probe = createClient({ url: redis!.url });
        await probe.connect();
        try {
          assert.deepEqual(await probe.keys("parkour:v1:lock:*"), []);
        } finally {
          await probe.close();
        }
      });
    } finally {
      await Promise.all(replicas.map((r) => r.stop().catch(() => 0)));
      await upstream.close();
      await issuer.close();
      await redis?.stop();
      await pg?.stop();
    }
  },
});
