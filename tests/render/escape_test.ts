/**
 * The renderer cannot be steered inward. The real server over stdio renders
 * pages of an "origin" server on 127.0.0.1, the one origin let through the
 * address guard (PARKOUR_RENDER_ALLOW_ORIGINS, the test-only setting). Every
 * page then tries to reach a "canary" server on loopback that is not let
 * through: by redirects of each status code and to each spelling of
 * loopback, by navigations (location, meta refresh, a clicked link), by
 * subresources behind a redirect (fetch, XHR, img, iframe, script, CSS,
 * EventSource, worker, window.open, prefetch) and by WebSockets. No request
 * may reach the canary and no answer may carry its text.
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

const SECRET_TEXT = "CANARY-7f3a private text";

// The canary: counts every request and WebSocket that reaches it, on IPv4 and IPv6 loopback.
const hits: string[] = [];
function canaryHandler(req: Request): Response {
  hits.push(new URL(req.url).pathname);
  if (req.headers.get("upgrade")?.toLowerCase() === "websocket") {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onopen = () => socket.send(SECRET_TEXT);
    return response;
  }
  const path = new URL(req.url).pathname;
  const type = path.endsWith(".js")
    ? "text/javascript"
    : path.endsWith(".css")
    ? "text/css"
    : path.startsWith("/events")
    ? "text/event-stream"
    : "text/html";
  const body = type === "text/event-stream"
    ? `data: ${SECRET_TEXT}\n\n`
    : type === "text/javascript"
    ? `document.getElementById("out").textContent += ${JSON.stringify(SECRET_TEXT)};`
    : type === "text/css"
    ? `body::after { content: "${SECRET_TEXT}"; }`
    : `<html><head><title>Canary</title></head><body><main><h1>Canary</h1><p>${SECRET_TEXT}, which no render may return.</p></main></body></html>`;
  return new Response(body, {
    headers: { "content-type": type, "access-control-allow-origin": "*" },
  });
}
const canary = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, canaryHandler);
let canary6: Deno.HttpServer<Deno.NetAddr> | undefined;
try {
  canary6 = Deno.serve({ hostname: "::1", port: 0, onListen() {} }, canaryHandler);
} catch { /* no IPv6 loopback here */ }
const CANARY = `http://127.0.0.1:${canary.addr.port}`;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>
<p>A page of the allowed origin that tries to reach a loopback server it must not reach.</p>
<p id="out">Result: </p>${body}</main>
<script>function out(t) { document.getElementById("out").textContent += " " + t; }</script>
</body></html>`;

/** A same-origin path that redirects (302) to `to`. */
const via = (to: string, code = 302) => `/r/${code}?to=${encodeURIComponent(to)}`;

const PAGES: Record<string, string> = {
  location: page("Location", `<script>location.href = "${via(CANARY + "/location")}";</script>`),
  meta: page(
    "Meta refresh",
    `<meta http-equiv="refresh" content="0;url=${via(CANARY + "/meta")}">`,
  ),
  click: page("Click", `<a id="go" href="${via(CANARY + "/click")}">go</a>`),
  fetch: page(
    "Fetch",
    `<script>fetch("${
      via(CANARY + "/fetch")
    }").then((r) => r.text()).then(out, () => out("refused"));</script>`,
  ),
  xhr: page(
    "XHR",
    `<script>const x = new XMLHttpRequest(); x.open("GET", "${
      via(CANARY + "/xhr")
    }"); x.onload = () => out(x.responseText); x.send();</script>`,
  ),
  img: page("Image", `<img src="${via(CANARY + "/img")}">`),
  iframe: page("Frame", `<iframe src="${via(CANARY + "/frame")}"></iframe>`),
  script: page("Script", `<script src="${via(CANARY + "/s.js")}"></script>`),
  css: page("Style", `<link rel="stylesheet" href="${via(CANARY + "/c.css")}">`),
  eventsource: page(
    "Events",
    `<script>const e = new EventSource("${
      via(CANARY + "/events")
    }"); e.onmessage = (m) => out(m.data);</script>`,
  ),
  worker: page(
    "Worker",
    `<script>try { new Worker("${
      via(CANARY + "/w.js")
    }"); } catch (e) { out("no worker"); }</script>`,
  ),
  popup: page("Popup", `<script>window.open("${via(CANARY + "/popup")}");</script>`),
  prefetch: page("Prefetch", `<link rel="prefetch" href="${via(CANARY + "/prefetch")}">`),
  ws: page(
    "WebSocket",
    `<script>const s = new WebSocket("ws://127.0.0.1:${canary.addr.port}/ws"); s.onmessage = (m) => out(m.data);</script>`,
  ),
  "ws-localhost": page(
    "WebSocket localhost",
    `<script>const s = new WebSocket("ws://localhost:${canary.addr.port}/ws-localhost"); s.onmessage = (m) => out(m.data);</script>`,
  ),
  // Controls: what the origin itself offers still works.
  "own-ws": page(
    "Own WebSocket",
    `<script>const s = new WebSocket("ws://" + location.host + "/own-ws"); s.onmessage = (m) => out(m.data);</script>`,
  ),
  plain: page("Plain", "<p>Nothing to reach for here: a plain page of the allowed origin.</p>"),
};

const origin = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const url = new URL(req.url);
  const redirect = url.pathname.match(/^\/r\/(\d{3})$/);
  if (redirect) {
    return new Response(null, {
      status: Number(redirect[1]),
      headers: { location: url.searchParams.get("to") ?? "/" },
    });
  }
  if (url.pathname === "/own-ws") {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onopen = () => socket.send("own websocket answered");
    return response;
  }
  const html = PAGES[url.pathname.replace(/^\/p\//, "")];
  if (html) return new Response(html, { headers: { "content-type": "text/html" } });
  return new Response("nope", { status: 404 });
});
const ORIGIN = `http://127.0.0.1:${origin.addr.port}`;

interface Case {
  name: string;
  args: Record<string, unknown>;
}

const js = (url: string): Record<string, unknown> => ({ url, requires_js: true, full_page: true });

const REDIRECTS: Case[] = [
  ...[301, 302, 303, 307, 308].map((code) => ({
    name: `redirect ${code}`,
    args: js(`${ORIGIN}${via(`${CANARY}/redirect-${code}`, code)}`),
  })),
  {
    name: "redirect to localhost",
    args: js(`${ORIGIN}${via(`http://localhost:${canary.addr.port}/localhost`)}`),
  },
  {
    name: "redirect to 2130706433",
    args: js(`${ORIGIN}${via(`http://2130706433:${canary.addr.port}/decimal`)}`),
  },
  ...(canary6
    ? [{
      name: "redirect to [::1]",
      args: js(`${ORIGIN}${via(`http://[::1]:${canary6.addr.port}/ipv6`)}`),
    }]
    : []),
  {
    name: "two hops inside the origin, then out",
    args: js(`${ORIGIN}${via(via(`${CANARY}/chain`, 307), 301)}`),
  },
];

const NAVIGATIONS: Case[] = [
  { name: "location assignment through a redirect", args: js(`${ORIGIN}/p/location`) },
  { name: "meta refresh through a redirect", args: js(`${ORIGIN}/p/meta`) },
  {
    name: "a link clicked by actions, through a redirect",
    args: {
      url: `${ORIGIN}/p/click`,
      full_page: true,
      actions: [{ type: "click", selector: "#go" }],
    },
  },
  { name: "window.open through a redirect", args: js(`${ORIGIN}/p/popup`) },
];

const SUBRESOURCES: Case[] = [
  "fetch",
  "xhr",
  "img",
  "iframe",
  "script",
  "css",
  "eventsource",
  "worker",
  "prefetch",
  "ws",
  "ws-localhost",
].map((name) => ({ name, args: js(`${ORIGIN}/p/${name}`) }));

let tmp: string | undefined;

async function start(shipped: boolean): Promise<Client> {
  tmp ??= await Deno.makeTempDir({ prefix: "parkour-escape-test-" });
  const launched = renderLaunch(tmp, {
    MCP_RENDER_TIMEOUT_S: "20",
    PARKOUR_RENDER_ALLOW_ORIGINS: ORIGIN,
  }, shipped);
  const c = new Client(
    { name: "escape-test", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await c.connect(
    new StdioClientTransport({
      ...launched,
      stderr: "pipe",
    }),
  );
  return c;
}

let client: Client | undefined;

async function call(args: Record<string, unknown>, on?: Client) {
  const c = on ?? (client ??= await start(false));
  const a = await callTool(c, "web_fetch_incisive", args, { timeout: 120_000 });
  return { ...a, body: a.blocks.map((f) => f.lines.join("\n")).join("\n") };
}

/** Runs the cases; returns the ones that escaped (reached the canary or returned its text). */
async function escapes(cases: Case[], on?: Client): Promise<string[]> {
  const escaped: string[] = [];
  for (const c of cases) {
    hits.length = 0;
    let answer;
    try {
      answer = await call(c.args, on);
    } catch (error) {
      // The server itself failed: a finding too; a fresh server for the next case.
      escaped.push(`${c.name} (the server failed: ${(error as Error).message})`);
      if (!on) {
        await client?.close().catch(() => {});
        client = undefined;
      }
      continue;
    }
    // A late request (a worker, a prefetch) still counts: give the page's stragglers a moment.
    await new Promise((r) => setTimeout(r, 200));
    const leaked = answer.text.includes("CANARY-7f3a");
    if (hits.length > 0 || leaked) {
      escaped.push(`${c.name} (${hits.length} requests${leaked ? ", text returned" : ""})`);
    }
  }
  console.log(
    `escapes: ${escaped.length} of ${cases.length}${escaped.length ? ": " : ""}${
      escaped.join("; ")
    }`,
  );
  return escaped;
}

const opts = { ignore, sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "render escape: redirects of each status code and each loopback spelling stop at the proxy",
  ...opts,
  fn: async () => {
    assert.deepEqual(await escapes(REDIRECTS), []);
  },
});

Deno.test({
  name: "render escape: location, meta refresh, clicked links and popups through a redirect",
  ...opts,
  fn: async () => {
    assert.deepEqual(await escapes(NAVIGATIONS), []);
  },
});

Deno.test({
  name: "render escape: subresources through a redirect, and WebSockets to loopback",
  ...opts,
  fn: async () => {
    assert.deepEqual(await escapes(SUBRESOURCES), []);
  },
});

Deno.test({
  name: "render escape: the allowed origin still works (its redirects and its WebSocket)",
  ...opts,
  fn: async () => {
    const inside = await call(js(`${ORIGIN}${via("/p/plain", 307)}`));
    assert.equal(inside.isError, false, inside.text);
    assert.match(inside.body, /Nothing to reach for here/);
    const ws = await call(js(`${ORIGIN}/p/own-ws`));
    assert.equal(ws.isError, false, ws.text);
    assert.match(ws.body, /own websocket answered/);
  },
});

Deno.test({
  name: "render escape: the same holds on the start:render line exactly as shipped",
  ...opts,
  fn: async () => {
    const shipped = await start(true);
    try {
      const cases = [REDIRECTS[1], REDIRECTS[5], NAVIGATIONS[0], SUBRESOURCES[0], SUBRESOURCES[9]];
      assert.deepEqual(await escapes(cases, shipped), []);
      const inside = await call(js(`${ORIGIN}${via("/p/plain")}`), shipped);
      assert.equal(inside.isError, false, inside.text);
      assert.match(inside.body, /Nothing to reach for here/);
    } finally {
      await shipped.close();
    }
  },
});

Deno.test({
  name: "render escape: teardown",
  ...opts,
  fn: async () => {
    await client?.close();
    if (tmp) await Deno.remove(tmp, { recursive: true }).catch(() => {});
  },
});

globalThis.addEventListener("unload", () => {
  void origin.shutdown();
  void canary.shutdown();
  void canary6?.shutdown();
});
