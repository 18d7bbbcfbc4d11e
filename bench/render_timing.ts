/**
 * Times headless renders through the real server (launched as
 * `deno task start:render` launches it): a first render, browser launch
 * included (a new server each time), and a render on the reused browser;
 * median of 5 each. Not a timed test: run it by hand.
 *
 *   deno run --allow-all --config deno.dev.json bench/render_timing.ts
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { installedChromium, NO_BROWSER, renderLaunch } from "../tests/support/render.ts";

if (!installedChromium()) {
  console.log(NO_BROWSER);
  Deno.exit(0);
}

const PAGE = `<!doctype html><html><head><title>Timing</title></head><body><div id="root"></div>
<script>setTimeout(() => { document.getElementById("root").innerHTML =
"<main><h1>Timing page</h1><p>" + "Rendered by a script, long enough to be kept as content. ".repeat(20) +
"</p></main>"; }, 50);</script></body></html>`;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
);
const BASE = `http://127.0.0.1:${server.addr.port}`;
const tmp = await Deno.makeTempDir({ prefix: "parkour-render-bench-" });

async function start(): Promise<Client> {
  const launched = renderLaunch(tmp, { PARKOUR_RENDER_ALLOW_ORIGINS: BASE });
  const client = new Client({ name: "render-bench", version: "1" });
  await client.connect(new StdioClientTransport({ ...launched, stderr: "pipe" }));
  return client;
}

async function render(client: Client, n: number): Promise<number> {
  const t0 = performance.now();
  const result = await client.callTool(
    { name: "web_fetch_incisive", arguments: { url: `${BASE}/?n=${n}`, requires_js: true } },
    { timeout: 120_000 },
  );
  const ms = performance.now() - t0;
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const first: number[] = [];
const reused: number[] = [];
for (let i = 0; i < 5; i++) {
  const client = await start();
  // A cheap call first, so the server's own start-up is not counted.
  await client.listTools();
  first.push(await render(client, 0));
  if (i === 4) { for (let j = 1; j <= 5; j++) reused.push(await render(client, j)); }
  await client.close();
}
console.log(
  `first render (browser launch included): median ${median(first).toFixed(0)} ms of [${
    first.map((x) => x.toFixed(0)).join(", ")
  }]`,
);
console.log(
  `reused-browser render: median ${median(reused).toFixed(0)} ms of [${
    reused.map((x) => x.toFixed(0)).join(", ")
  }]`,
);
await server.shutdown();
await Deno.remove(tmp, { recursive: true }).catch(() => {});
