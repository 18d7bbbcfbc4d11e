/**
 * Rendering pages whose content arrives late or elsewhere, with a real
 * Chromium and the real server (as `start:render` launches it): a Gradio
 * app and a Streamlit app that draw after the network went quiet, a page
 * whose content is its embedded app frame (as a Hugging Face Space is), and
 * PDF links asked for with requires_js, which go to the PDF path.
 *
 * The test pages are ours: they reproduce each framework's markers (the
 * `<gradio-app>` element and its pending state, Streamlit's `stApp` and
 * status widget), not the frameworks themselves.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { callTool } from "../support/mcp_client.ts";
import { makePdf } from "../support/pdf.ts";
import { installedChromium, NO_BROWSER, renderLaunch } from "../support/render.ts";

const chromium = installedChromium();
if (!chromium) console.log(NO_BROWSER);

// Drawn 1.5 s after load, with no request in between: past the browser's "network quiet".
const GRADIO = `<!doctype html><html><head><title>Captioner</title></head><body>
<gradio-app><div class="gradio-container"><div class="pending">Loading the app...</div></div></gradio-app>
<script>
setTimeout(() => {
  document.querySelector(".gradio-container").innerHTML =
    "<h1>Image captioner</h1><p>Upload a picture and the model writes a caption for it, in English or French, within a few seconds.</p><button id=run>Caption</button>";
}, 1500);
</script></body></html>`;

const STREAMLIT = `<!doctype html><html><head><title>Dashboard</title></head><body>
<div data-testid="stApp"><div data-testid="stStatusWidget">Running...</div>
<section data-testid="stMain"></section></div>
<script>
setTimeout(() => {
  document.querySelector('[data-testid="stMain"]').innerHTML =
    "<h1>Sales dashboard</h1><p>Revenue by region for the last quarter, with the northern region ahead by eleven percent.</p>";
  document.querySelector('[data-testid="stStatusWidget"]').remove();
}, 1500);
</script></body></html>`;

const PDF = makePdf(["The quarterly report of the widget cooperative, page one."], "Report");

let base = "";
let other = "";
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const path = new URL(req.url).pathname;
  const html = (body: string) =>
    new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  switch (path) {
    case "/gradio":
      return html(GRADIO);
    case "/streamlit":
      return html(STREAMLIT);
    case "/space":
      // A thin page around the app, which lives on another origin (as *.hf.space does).
      return html(`<!doctype html><html><head><title>A Space</title></head><body>
<header><a href="/">Spaces</a> <span>demo/captioner</span></header>
<iframe src="${other}/gradio" width="800" height="600"></iframe></body></html>`);
    case "/paper.pdf":
    case "/download":
      return new Response(PDF, { headers: { "content-type": "application/pdf" } });
    default:
      return new Response("nope", { status: 404 });
  }
});
base = `http://127.0.0.1:${server.addr.port}`;
other = `http://localhost:${server.addr.port}`;

let client: Client | undefined;
let tmp: string | undefined;

async function connect(): Promise<Client> {
  if (client) return client;
  tmp = await Deno.makeTempDir({ prefix: "parkour-apps-test-" });
  const launched = renderLaunch(tmp, {
    MCP_RENDER_TIMEOUT_S: "30",
    PARKOUR_RENDER_ALLOW_ORIGINS: `${base},${other}`,
    // The PDF path fetches statically, which needs loopback allowed in lib/net.
    MCP_ALLOW_PRIVATE_IPS: "1",
  });
  const c = new Client({ name: "apps-test", version: "1" });
  await c.connect(new StdioClientTransport({ ...launched, stderr: "pipe" }));
  return client = c;
}

async function render(url: string) {
  const a = await callTool(await connect(), "web_fetch_incisive", { url, requires_js: true }, {
    timeout: 120_000,
  });
  return { ...a, body: a.blocks.map((b) => b.lines.join("\n")).join("\n") };
}

const opts = { ignore: chromium === undefined, sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "render apps: Gradio and Streamlit apps are read once drawn, a Space through its frame",
  ...opts,
  fn: async () => {
    const gradio = await render(`${base}/gradio`);
    assert.equal(gradio.isError, false, gradio.text);
    assert.match(gradio.body, /Upload a picture and the model writes a caption/);
    assert.doesNotMatch(gradio.body, /Loading the app/);
    assert.equal(gradio.fm.app_framework, "gradio");

    const streamlit = await render(`${base}/streamlit`);
    assert.match(streamlit.body, /northern region ahead by eleven percent/);
    assert.equal(streamlit.fm.app_framework, "streamlit");

    const space = await render(`${base}/space`);
    assert.equal(space.isError, false, space.text);
    assert.match(space.body, /Upload a picture and the model writes a caption/);
    assert.equal(space.fm.rendered_frame, `${other}/gradio`);
    assert.match(String(space.fm.note), /embedded frame/);
  },
});

Deno.test({
  name: "render apps: a PDF asked for with requires_js is read through the PDF path",
  ...opts,
  fn: async () => {
    try {
      for (const path of ["/paper.pdf", "/download"]) {
        const pdf = await render(`${base}${path}`);
        assert.equal(pdf.isError, false, pdf.text);
        assert.match(pdf.body, /quarterly report of the widget cooperative/, path);
        assert.match(String(pdf.fm.note), /not a page for the browser/, path);
        assert.equal(pdf.fm.renderer, undefined, `${path}: nothing was rendered`);
      }
    } finally {
      await client?.close();
      await server.shutdown();
      if (tmp) await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});
