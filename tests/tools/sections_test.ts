/**
 * Duplicate headings through the real server: a page with three "Options"
 * sections (fixtures/pages/duplicate_headings.html) served on 127.0.0.1 and
 * read with web_fetch_incisive. A heading path, a parent-qualified name or
 * the disambiguated id picks one; the bare name returns the first and says
 * which ones it could have been.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { ROOT_DIR } from "../support/process.ts";
import { asList, callTool, connectServer } from "../support/mcp_client.ts";

const PAGE = await Deno.readTextFile(`${ROOT_DIR}/fixtures/pages/duplicate_headings.html`);
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
);
const URL_ = `http://127.0.0.1:${server.addr.port}/manual`;

const client: Client = await connectServer({
  env: { MCP_ALLOW_PRIVATE_IPS: "1" },
  replay: false,
  name: "sections-test",
});

const INSTALL = /--prefix chooses/;
const FAQ = /kettle\.toml/;
const RUNTIME = /--verbose prints/;

async function section(name: string) {
  const a = await callTool(client, "web_fetch_incisive", { url: URL_, section: name });
  assert.equal(a.isError, false, a.text);
  return { ...a, text: a.fences[0]?.join("\n") ?? "" };
}

Deno.test("sections: a parent-qualified name picks the section under that parent", async () => {
  const a = await section("Options (FAQ)");
  assert.match(a.text, FAQ);
  assert.doesNotMatch(a.text, INSTALL);
  assert.equal(a.fm.sections_not_found, undefined);
  assert.equal(a.fm.sections_ambiguous, undefined);
});

Deno.test("sections: a heading path picks one, with or without the levels in between", async () => {
  for (
    const [name, want] of [
      ["FAQ > Options", FAQ],
      ["Install / Options", INSTALL],
      ["Usage > Running > Options", RUNTIME],
      ["Usage > Options", RUNTIME],
      ["usage › options", RUNTIME],
    ] as const
  ) {
    const a = await section(name);
    assert.match(a.text, want, name);
    assert.equal(a.fm.sections_ambiguous, undefined, name);
    assert.equal(a.fm.sections_returned, 1, name);
  }
});

Deno.test("sections: the disambiguated ids from the outline pick each one", async () => {
  const outline = await callTool(client, "web_fetch_sections", { url: URL_ });
  const ids = outline.body.filter((l) => l.includes("- Options (#")).map((l) =>
    /\(#([^)]+)\)/.exec(l)![1]
  );
  assert.equal(ids.length, 3, outline.body.join("\n"));
  const texts = await Promise.all(ids.map((id) => section(`#${id}`)));
  assert.match(texts[0].text, INSTALL);
  assert.match(texts[1].text, FAQ);
  assert.match(texts[2].text, RUNTIME);
});

Deno.test("sections: an ambiguous name returns the first and lists every candidate with its parents", async () => {
  const a = await section("Options");
  assert.match(a.text, INSTALL);
  assert.deepEqual(asList(a.fm.sections_ambiguous).map(String), ["Options"]);
  assert.ok(
    asList(a.fm.note).some((n) =>
      /match several headings.*section=<#id or Parent > Name>/.test(String(n))
    ),
    String(a.fm.note),
  );
  // The candidates (page text) are fenced, never in the frontmatter.
  const list = a.fences[1] ?? [];
  assert.deepEqual(list, [
    '"Options" names 3 sections:',
    "  - Kettle manual > Install > Options (#options) [returned]",
    "  - Kettle manual > FAQ > Options (#options-1)",
    "  - Kettle manual > Usage > Running > Options (#options-2)",
  ]);
  // A unique name says nothing of the kind.
  const unique = await section("Running");
  assert.equal(unique.fm.sections_ambiguous, undefined);
  assert.equal(unique.fences.length, 1);
});

Deno.test("sections: a qualifier naming no parent of that heading falls back as before", async () => {
  const a = await callTool(client, "web_fetch_incisive", {
    url: URL_,
    section: "Options (Nowhere)",
  });
  assert.equal(a.isError, false, a.text);
  // The bare title still matches (the first "Options"), as a fuzzy match did before.
  assert.match(a.fences[0].join("\n"), INSTALL);
});

Deno.test({
  name: "sections: cleanup",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await server.shutdown();
  },
});
