/**
 * Code outlines of issue 21 through the real server: Kotlin and Scala files
 * (grammars from their own npm packages) and a Go file whose methods nest
 * under their receiver type, served from an HTTP server on 127.0.0.1 and
 * read with the page tools (MCP_ALLOW_PRIVATE_IPS=1 lets the address check
 * through for it). Samples: fixtures/code/.
 */
import assert from "node:assert/strict";
import { ROOT_DIR } from "../support/process.ts";
import { callTool, connectServer } from "../support/mcp_client.ts";

const DIR = `${ROOT_DIR}/fixtures/code`;
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  const name = new URL(req.url).pathname.slice(1);
  if (!/^sample\.(kt|scala|go)$/.test(name)) return new Response("no", { status: 404 });
  return new Response(await Deno.readTextFile(`${DIR}/${name}`), {
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
});
const BASE = `http://127.0.0.1:${server.addr.port}`;
const client = await connectServer({
  env: { MCP_ALLOW_PRIVATE_IPS: "1" },
  replay: false,
  name: "code-outlines",
});

async function outlineOf(file: string): Promise<string[]> {
  const a = await callTool(client, "web_fetch_sections", { url: `${BASE}/${file}` });
  assert.equal(a.isError, false, a.text);
  return a.body.filter((l) => /^\s*- /.test(l));
}

Deno.test("code outlines: Kotlin classes, objects, companions and functions", async () => {
  const lines = await outlineOf("sample.kt");
  assert.ok(lines.some((l) => /^- interface Shape \(lines 5-8\) — A shape with an area\./.test(l)));
  assert.ok(lines.some((l) => /^- data class Circle \(lines 10-18\)/.test(l)), lines.join("\n"));
  assert.ok(lines.some((l) => /^ {2}- fun area \(lines 12-13\)/.test(l)));
  assert.ok(lines.some((l) => /^ {2}- companion object Companion/.test(l)));
  assert.ok(lines.some((l) => /^ {4}- fun unit/.test(l)));
  assert.ok(lines.some((l) => /^- enum class Colour/.test(l)));
  assert.ok(lines.some((l) => /^- object Registry/.test(l)));
  assert.ok(lines.some((l) => /^- fun total \(lines 33-34\) — Sums the areas\./.test(l)));
  const one = await callTool(client, "web_fetch_incisive", {
    url: `${BASE}/sample.kt`,
    section: "Registry.add",
  });
  assert.match(one.body.join("\n"), /^26 {2}\s*fun add\(shape: Shape\) \{$/m);
});

Deno.test("code outlines: Scala traits, case classes, objects and defs", async () => {
  const lines = await outlineOf("sample.scala");
  assert.ok(lines.some((l) => /^- trait Shape \(lines 5-8\)/.test(l)), lines.join("\n"));
  assert.ok(lines.some((l) => /^- case class Circle \(lines 10-14\) — A circle\./.test(l)));
  assert.ok(
    lines.some((l) => /^ {2}- def area \(lines 12-13\) — The area of the circle\./.test(l)),
  );
  assert.ok(lines.some((l) => /^- object Registry \(lines 16-22\)/.test(l)));
  assert.ok(lines.some((l) => /^- def total/.test(l)));
});

Deno.test("code outlines: Go methods nest under their receiver type, and every line is kept once", async () => {
  const lines = await outlineOf("sample.go");
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  const server_ = at(/^- struct Server \(lines 6-9\)/);
  const start = at(/^ {2}- func Start \(lines 16-20\)/);
  const handler = at(/^- interface Handler \(lines 11-14\)/);
  assert.ok(server_ >= 0 && start === server_ + 1 && handler === start + 1, lines.join("\n"));
  const s = await callTool(client, "web_fetch_incisive", {
    url: `${BASE}/sample.go`,
    section: "Server.Start",
  });
  assert.match(s.body.join("\n"), /^17 {2}func \(s \*Server\) Start\(\) error \{$/m);
  assert.doesNotMatch(s.body.join("\n"), /^11 /m);
  // The whole file, in outline order: no line twice, and every line with text is there.
  const all = await callTool(client, "web_fetch_incisive", {
    url: `${BASE}/sample.go`,
    full_page: true,
    max_tokens: 20000,
  });
  const numbers = all.body.map((l) => /^\s*(\d+) {2}/.exec(l)?.[1]).filter(Boolean).map(Number);
  assert.equal(new Set(numbers).size, numbers.length, "no line twice");
  const text = (await Deno.readTextFile(`${DIR}/sample.go`)).split("\n");
  for (let i = 0; i < text.length; i++) {
    if (text[i].trim()) assert.ok(numbers.includes(i + 1), `line ${i + 1} is shown`);
  }
});

Deno.test({
  name: "code outlines: cleanup",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await server.shutdown();
  },
});
