/**
 * Load benchmark of the HTTP API as a fleet: a runnable script (not a
 * `deno bench` file).
 *
 * ```sh
 * deno run -A --config deno.dev.json bench/replicas_load.ts [--duration 10] [--connections 50] [--pages 60]
 * ```
 *
 * A local upstream on 127.0.0.1 serves `--pages` generated articles, each
 * answer after 100 ms (a distant site). `--connections` closed-loop clients
 * (autocannon) ask `/api?url=...` for those pages in turn, spread evenly over
 * the replicas, for `--duration` seconds, in three set-ups:
 *
 * 1. one replica (the baseline);
 * 2. three replicas, each with its own in-memory cache (what scaling out
 *    gave before the shared store);
 * 3. three replicas sharing one `redis-server` (`PARKOUR_CACHE`).
 *
 * It prints a Markdown table of requests per second, latency p50/p99, errors
 * and upstream fetches (the number of requests that reached the upstream),
 * and the ratios to the baseline. Needs redis-server (Debian's package).
 *
 * Caveat: on a 2-core machine the clients, the upstream, redis and three
 * servers share the CPU, so the throughput of three replicas cannot show
 * more cores' worth; the upstream count is the figure that does not depend
 * on the machine.
 *
 * @module
 */
import autocannonUntyped from "autocannon";
import { parseArgs } from "node:util";
import { HttpServerProcess } from "../tests/support/process.ts";
import { NO_STORES, startRedis } from "../tests/support/stores.ts";

type Result = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
};
const autocannon = autocannonUntyped as unknown as (
  opts: Record<string, unknown>,
) => Promise<Result>;

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    pages: { type: "string", default: "60" },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const PAGES = Number(values.pages);

if (NO_STORES.includes("redis")) {
  console.error(`needs redis-server: ${NO_STORES}`);
  Deno.exit(1);
}

let upstreamHits = 0;
const paragraph = "Replicated services keep state outside the process so any copy can answer. "
  .repeat(40);
const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  upstreamHits++;
  await new Promise((r) => setTimeout(r, 100));
  const path = new URL(req.url).pathname;
  const body = `<!doctype html><title>${path}</title><main><article><h1>${path}</h1>` +
    Array.from({ length: 8 }, (_, i) => `<h2>Part ${i}</h2><p>${paragraph}</p>`).join("") +
    `</article></main>`;
  return new Response(body, { headers: { "content-type": "text/html" } });
});
const upstreamUrl = `http://127.0.0.1:${(upstream.addr as Deno.NetAddr).port}`;

async function phase(label: string, replicas: number, cache?: string) {
  const env: Record<string, string> = { MCP_ALLOW_PRIVATE_IPS: "1" };
  if (cache) env.PARKOUR_CACHE = cache;
  const servers = await Promise.all(
    Array.from({ length: replicas }, () => HttpServerProcess.start(undefined, [], env)),
  );
  console.error(`${label}: servers up`);
  upstreamHits = 0;
  let counter = 0;
  try {
    const runs = servers.map((server, i) => {
      const base = server.url.replace(/\/mcp$/, "");
      return autocannon({
        url: base,
        connections: Math.round(CONNECTIONS / replicas) + (i < CONNECTIONS % replicas ? 1 : 0),
        duration: DURATION,
        requests: [{
          setupRequest: (req: Record<string, unknown>) => {
            const page = `${upstreamUrl}/page-${counter++ % PAGES}`;
            return { ...req, path: `/api?url=${encodeURIComponent(page)}&max_tokens=2000` };
          },
        }],
      });
    });
    const results = await Promise.all(runs);
    const total = results.reduce((s, r) => s + r.requests.total, 0);
    return {
      label,
      reqPerSec: total / DURATION,
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      errors: results.reduce((s, r) => s + r.errors + r.non2xx, 0),
      upstream: upstreamHits,
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

console.error("starting redis");
const redis = await startRedis();
console.error("redis up");
try {
  const rows = [
    await phase("1 replica, memory cache (baseline)", 1),
    await phase("3 replicas, memory cache each", 3),
    await phase("3 replicas, shared redis cache", 3, redis.url),
  ];
  const base = rows[0];
  console.log(
    `\n${CONNECTIONS} clients, ${DURATION} s each, ${PAGES} pages (upstream answers after 100 ms)\n`,
  );
  console.log("| set-up | req/s | ×baseline | p50 ms | p99 ms | errors | upstream fetches |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${r.reqPerSec.toFixed(0)} | ${
        (r.reqPerSec / base.reqPerSec).toFixed(2)
      } | ${r.p50} | ${r.p99} | ${r.errors} | ${r.upstream} |`,
    );
  }
} finally {
  await redis.stop();
  await upstream.shutdown();
}
