/**
 * Rendering through the HTTP API: `GET /api?...&requires_js=true` (and
 * `actions=`) renders the page in a real Chromium, as the page tool does,
 * on a `serve --http` process launched with the render permissions of
 * `start:render`. Without it, a page built by scripts is a 422 whose error
 * says to ask with requires_js=true.
 */
import assert from "node:assert/strict";
import { installedChromium, NO_BROWSER, renderLaunch } from "../support/render.ts";

const chromium = installedChromium();
if (!chromium) console.log(NO_BROWSER);

const APP = `<!doctype html><html><head><title>Gadgets</title></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<script>
setTimeout(() => {
  document.getElementById("root").innerHTML = "<main><h1>Gadgets</h1><h2>Catalogue</h2>" +
    "<p>The gadget catalogue lists levers, pulleys and cogs for every bench, with sizes and prices.</p>" +
    "<p id='more-text'>Press the button for more.</p><button id='more'>More</button></main>";
  document.getElementById("more").onclick = () => {
    document.getElementById("more-text").textContent = "The second batch: sprung hinges and brass gears, in stock.";
  };
}, 50);
</script></body></html>`;

Deno.test({
  name: "rest: requires_js and actions render the page through the HTTP API",
  ignore: chromium === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const site = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response(APP, { headers: { "content-type": "text/html; charset=utf-8" } }),
    );
    const page = `http://127.0.0.1:${site.addr.port}/app`;
    const tmp = await Deno.makeTempDir({ prefix: "parkour-rest-render-" });
    const launched = renderLaunch(tmp, {
      PARKOUR_RENDER_ALLOW_ORIGINS: `http://127.0.0.1:${site.addr.port}`,
      MCP_ALLOW_PRIVATE_IPS: "1",
      MCP_RENDER_TIMEOUT_S: "30",
    });
    const child = new Deno.Command(launched.command, {
      args: [...launched.args, "serve", "--http", "--port", "0"],
      env: launched.env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let log = "";
    let base = "";
    while (!base) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the server did not start: ${log}`);
      log += value;
      base = /serving MCP at (http:\/\/\S+)\/mcp/.exec(log)?.[1] ?? "";
    }
    (async () => {
      while (!(await reader.read()).done) { /* drain */ }
    })().catch(() => {});
    const get = async (params: Record<string, string>) => {
      const res = await fetch(`${base}/api?${new URLSearchParams({ url: page, ...params })}`);
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    try {
      const shell = await get({ format: "json" });
      assert.equal(shell.status, 422, shell.text);
      assert.match(JSON.parse(shell.text).error, /render it with requires_js=true/);

      const rendered = await get({ requires_js: "true" });
      assert.equal(rendered.status, 200, rendered.text);
      assert.equal(rendered.headers.get("x-renderer"), "chromium");
      assert.match(rendered.text, /levers, pulleys and cogs/);

      const clicked = await get({
        actions: JSON.stringify([{ type: "click", selector: "#more" }]),
      });
      assert.equal(clicked.status, 200, clicked.text);
      assert.match(clicked.text, /sprung hinges and brass gears/);

      const bad = await get({ actions: "not json" });
      assert.equal(bad.status, 400);
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await site.shutdown();
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});
