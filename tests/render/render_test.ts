/**
 * Headless rendering end to end, with a real Chromium: the real server over
 * stdio (launched as `deno task start:render` launches it), rendering pages
 * served on 127.0.0.1. Only that origin is let through the address guard
 * (PARKOUR_RENDER_ALLOW_ORIGINS); a second local server stands for a private
 * target the page must not reach.
 *
 * Without a Chromium installed, every test is ignored with a message.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { callTool } from "../support/mcp_client.ts";
import { installedChromium, NO_BROWSER, renderLaunch } from "../support/render.ts";

const chromium = installedChromium();
if (!chromium) console.log(NO_BROWSER);
const ignore = chromium === undefined;

// The private target: counts every request that reaches it.
let secretHits = 0;
const secret = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
  secretHits++;
  return new Response("top secret", {
    headers: { "content-type": "text/plain", "access-control-allow-origin": "*" },
  });
});
const SECRET = `http://127.0.0.1:${secret.addr.port}`;

const APP = `<!doctype html><html><head><title>Widget app</title></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script>
setTimeout(() => {
  document.getElementById("root").innerHTML = \`
    <main>
      <article>
        <h1>Widgets</h1>
        <h2>Overview</h2>
        <p>The widget catalogue lists sprockets, flanges and grommets for every workshop, with sizes and prices for each of them.</p>
        <div id="extra"></div>
        <h2>Greeting</h2>
        <p id="greeting">No greeting yet: fill in the order form below and apply it to get one.</p>
      </article>
      <div class="controls">
        <button id="more">Load more</button>
        <label for="name">Your name</label><input id="name" placeholder="Name">
        <label for="colour">Colour</label>
        <select id="colour"><option value="red">red</option><option value="green">green</option></select>
        <button id="apply">Apply</button>
      </div>
    </main>\`;
  document.getElementById("more").onclick = async () => {
    const items = await (await fetch("/api/items")).json();
    document.getElementById("extra").innerHTML = "<h2>More items</h2><p>The second batch: " + items.join(", ") + ", all in stock this week.</p>";
  };
  document.getElementById("apply").onclick = () => {
    document.getElementById("greeting").textContent = "Hello " +
      document.getElementById("name").value + " in " + document.getElementById("colour").value;
  };
}, 50);
</script></body></html>`;

const LEAK = `<!doctype html><html><head><title>Leaky page</title></head><body>
<main><h1>Leaky page</h1><p id="out">The page tries to read a private address in the background.</p>
<img src="${SECRET}/pixel.png"></main>
<script>
fetch("${SECRET}/secret").then((r) => r.text()).then((t) => {
  document.getElementById("out").textContent = "LEAKED " + t;
}).catch(() => { document.getElementById("out").textContent = "The private request was refused."; });
</script></body></html>`;

const PLAIN = `<!doctype html><html><head><title>Plain</title></head><body><main><h1>Plain page</h1>
<p>Static text that needs no scripts at all, long enough to be a real paragraph of content.</p></main></body></html>`;

const hangs: ReadableStreamDefaultController<Uint8Array>[] = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req): Response => {
  const path = new URL(req.url).pathname;
  const html = (body: string) =>
    new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  switch (path) {
    case "/app":
      return html(APP);
    case "/api/items":
      return Response.json(["Gizmo details loaded later", "Doohickey"]);
    case "/leak":
      return html(LEAK);
    case "/away":
      return html(AWAY);
    case "/plain":
    case "/plain2":
      return html(PLAIN);
    case "/hang": {
      // Sends the start of a page and never finishes it.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          hangs.push(controller);
          controller.enqueue(new TextEncoder().encode("<html><head><title>Hang</title>"));
        },
      });
      return new Response(body, { headers: { "content-type": "text/html" } });
    }
    default:
      return new Response("nope", { status: 404 });
  }
});
const BASE = `http://127.0.0.1:${server.addr.port}`;
// The same server under another host name: a different host for the navigation rule.
const OTHER: string = `http://localhost:${server.addr.port}`;
const AWAY: string =
  `<!doctype html><html><head><title>Start</title></head><body><main><h1>Start page</h1>
<p>This page links to the same server under another host name, to test navigation.</p>
<a id="away" href="${OTHER}/plain">elsewhere</a></main></body></html>`;

interface Answer {
  text: string;
  fm: Record<string, unknown>;
  fences: { title?: string; lines: string[] }[];
  body: string;
  isError: boolean;
}

let client: Client | undefined;
let tmp: string | undefined;

async function start(env: Record<string, string>): Promise<Client> {
  tmp ??= await Deno.makeTempDir({ prefix: "parkour-render-test-" });
  const launched = renderLaunch(tmp, { MCP_RENDER_TIMEOUT_S: "10", ...env });
  const c = new Client(
    { name: "render-test", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await c.connect(
    new StdioClientTransport({ ...launched, stderr: "pipe" }),
  );
  return c;
}

/** The server of most tests: only the test page's origin passes the address guard. */
async function connect(): Promise<Client> {
  return client ??= await start({ PARKOUR_RENDER_ALLOW_ORIGINS: `${BASE},${OTHER}` });
}

async function call(
  args: Record<string, unknown>,
  onprogress?: (p: { progress: number; message?: string }) => void,
  on?: Client,
): Promise<Answer> {
  const c = on ?? await connect();
  const a = await callTool(c, "web_fetch_incisive", args, { onprogress, timeout: 120_000 });
  return {
    text: a.text,
    fm: a.fm,
    fences: a.blocks,
    body: a.blocks.map((f) => f.lines.join("\n")).join("\n"),
    isError: a.isError,
  };
}

function isElements(f: { lines: string[] }): boolean {
  return f.lines.some((l) => l.startsWith("## Interactive elements"));
}

const opts = { ignore, sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "render: a page built by scripts is rendered; its elements are listed; the tip once",
  ...opts,
  fn: async () => {
    // A server that may also fetch the page statically (MCP_ALLOW_PRIVATE_IPS=1 for 127.0.0.1).
    const open = await start({ MCP_ALLOW_PRIVATE_IPS: "1" });
    try {
      const shell = await call({ url: `${BASE}/app` }, undefined, open);
      assert.match(String(shell.fm.hint), /requires_js=true/);
      const progress: { progress: number; message?: string }[] = [];
      const app = await call(
        { url: `${BASE}/app`, requires_js: true },
        (p) => progress.push(p),
        open,
      );
      assert.equal(app.isError, false, app.text);
      assert.equal(app.fm.renderer, "chromium");
      assert.match(app.body, /sprockets, flanges and grommets/);
      assert.ok(progress.length >= 2, "progress notifications were sent");
      // Seen as a JavaScript shell first: no tip that the static fetch is cheaper.
      assert.equal(app.fm.tip, undefined);
      const elements = app.fences.find((f) => isElements(f));
      assert.ok(elements, "the elements fence is there");
      const listed = elements.lines.join("\n");
      assert.match(listed, /\*\*button\*\*: `#more`/);
      assert.match(listed, /\*\*input\*\*: `#name`/);
      assert.match(listed, /\*\*select\*\*: `#colour`/);
      assert.match(listed, /Options: red, green/);
      // The static Document is still the shell: the two are cached apart.
      const again = await call({ url: `${BASE}/app` }, undefined, open);
      assert.equal(again.fm.cached, true);
      assert.match(String(again.fm.hint), /requires_js=true/);
      // A page never seen as a shell: the tip, once per process.
      const plain = await call({ url: `${BASE}/plain`, requires_js: true }, undefined, open);
      assert.match(String(plain.fm.tip), /static fetch/);
      const plain2 = await call({ url: `${BASE}/plain2`, requires_js: true }, undefined, open);
      assert.equal(plain2.fm.tip, undefined);
    } finally {
      await open.close();
    }
  },
});

Deno.test({
  name: "render: section=, search= and max_elements work on the rendered page",
  ...opts,
  fn: async () => {
    const section = await call({ url: `${BASE}/app`, requires_js: true, section: "Overview" });
    assert.equal(section.isError, false, section.text);
    assert.match(section.body, /widget catalogue/);
    assert.doesNotMatch(section.fences[0].lines.join("\n"), /No greeting yet/);
    const search = await call({ url: `${BASE}/app`, requires_js: true, search: "grommets" });
    assert.match(search.body, /grommets/);
    assert.equal(search.fences.some((f) => isElements(f)), false);
    const none = await call({ url: `${BASE}/app`, requires_js: true, max_elements: 0 });
    assert.equal(none.fences.some((f) => isElements(f)), false);
    const one = await call({ url: `${BASE}/app`, requires_js: true, max_elements: 1 });
    const list = one.fences.find((f) => isElements(f))!.lines.join("\n");
    assert.match(list, /Showing 1 of \d+ elements/);
  },
});

Deno.test({
  name: "render: calls with other #id selectors get their own render, not the cached one",
  ...opts,
  fn: async () => {
    // Two action lists alike up to the first '#': a key read back as a URL lost the rest.
    const more = await call({
      url: `${BASE}/app`,
      full_page: true,
      actions: [{ type: "click", selector: "#more" }],
    });
    assert.equal(more.isError, false, more.text);
    assert.match(more.body, /Gizmo details loaded later/);
    const apply = await call({
      url: `${BASE}/app`,
      full_page: true,
      actions: [{ type: "click", selector: "#apply" }],
    });
    assert.equal(apply.isError, false, apply.text);
    assert.notEqual(apply.fm.cached, true, "a render of its own");
    assert.match(apply.body, /Hello {1,2}in red/);
    assert.doesNotMatch(apply.body, /Gizmo details loaded later/);
    // The same actions again are the cached render.
    const again = await call({
      url: `${BASE}/app`,
      full_page: true,
      actions: [{ type: "click", selector: "#apply" }],
    });
    assert.equal(again.fm.cached, true);
    assert.match(again.body, /Hello {1,2}in red/);
  },
});

Deno.test({
  name: "render: a click loads more content; fill and select feed a form",
  ...opts,
  fn: async () => {
    const more = await call({
      url: `${BASE}/app`,
      actions: [{ type: "click", selector: "#more" }],
    });
    assert.equal(more.isError, false, more.text);
    assert.match(more.body, /Gizmo details loaded later/);
    assert.equal(more.fm.actions_run, 1);
    const form = await call({
      url: `${BASE}/app`,
      // The whole page: main-content extraction keeps only the longest passage of this small page.
      full_page: true,
      actions: [
        { type: "wait", selector: "#name" },
        { type: "fill", selector: "#name", value: "Ada" },
        { type: "select", selector: "#colour", value: "green" },
        { type: "click", selector: "#apply" },
      ],
    });
    assert.equal(form.isError, false, form.text);
    assert.match(form.body, /Hello Ada in green/);
  },
});

Deno.test({
  name: "render: a failing action names its index and selector",
  ...opts,
  fn: async () => {
    const bad = await call({
      url: `${BASE}/app`,
      actions: [{ type: "wait", selector: "#name" }, { type: "click", selector: "#missing" }],
    });
    assert.equal(bad.isError, true, bad.text);
    assert.match(bad.text, /action 1 \(click on selector "#missing"\) failed/);
  },
});

Deno.test({
  name: "render: requests of the page to a private address are refused by the guard",
  ...opts,
  fn: async () => {
    const leak = await call({ url: `${BASE}/leak`, requires_js: true });
    assert.equal(leak.isError, false, leak.text);
    assert.match(leak.body, /The private request was refused/);
    assert.doesNotMatch(leak.body, /LEAKED/);
    assert.ok((leak.fm.blocked_requests as number) >= 1);
    assert.match(String(leak.fm.note), /loopback address/);
    // The private target itself, asked for directly, is refused too.
    const direct = await call({ url: `${SECRET}/secret`, requires_js: true });
    assert.equal(direct.isError, true);
    assert.match(direct.text, /refused to render .*loopback address/);
    assert.equal(secretHits, 0, "nothing reached the private server");
  },
});

Deno.test({
  name: "render: navigations stay on the requested host unless allow_offsite=true",
  ...opts,
  fn: async () => {
    const stay = await call({
      url: `${BASE}/away`,
      actions: [{ type: "click", selector: "#away" }],
    });
    assert.equal(stay.isError, true);
    assert.match(
      stay.text,
      /action 0 \(click on selector "#away"\) led the page to http:\/\/localhost:\d+\/plain \(navigation away from 127\.0\.0\.1.*allow_offsite=true/,
    );
    const leave = await call({
      url: `${BASE}/away`,
      allow_offsite: true,
      actions: [{ type: "click", selector: "#away" }],
    });
    assert.equal(leave.isError, false, leave.text);
    assert.match(leave.body, /Plain page/);
    assert.equal(leave.fm.final_url, `${OTHER}/plain`);
  },
});

Deno.test({
  name: "render: a page that never finishes loading ends at the deadline with a clear error",
  ...opts,
  fn: async () => {
    const started = Date.now();
    const hang = await call({ url: `${BASE}/hang`, requires_js: true });
    assert.equal(hang.isError, true);
    assert.match(hang.text, /did not finish within 10 s/);
    assert.ok(Date.now() - started < 60_000);
    // The browser still works afterwards.
    const after = await call({ url: `${BASE}/plain`, requires_js: true, max_elements: 0 });
    assert.equal(after.isError, false, after.text);
  },
});

Deno.test({
  name: "render: teardown",
  ...opts,
  fn: async () => {
    await client?.close();
    for (const c of hangs) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
    if (tmp) await Deno.remove(tmp, { recursive: true }).catch(() => {});
  },
});

globalThis.addEventListener("unload", () => {
  void server.shutdown();
  void secret.shutdown();
});
