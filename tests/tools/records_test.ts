/**
 * Record pages through the real server, replaying fixtures/http (and the
 * shared arXiv captures where present): a search that finds nothing on a
 * paper's or an RFC's record says the page is the record and points at the
 * full text it links to, instead of suggesting other spellings.
 */
import assert from "node:assert/strict";
import { sharedDir } from "../support/shared.ts";
import { asList, callTool, connectServer } from "../support/mcp_client.ts";

const SHARED = sharedDir() !== undefined;
if (!SHARED) console.log("records_test: PARKOUR_SHARED_DIR is not set; arXiv captures ignored");

const client = await connectServer({ name: "records-test" });
const cli = await connectServer({ name: "records-test-code", args: ["--profile", "code"] });

async function search(c = client, url: string, words: string) {
  const name = c === client ? "web_fetch_incisive" : "WebFetchIncisive";
  const a = await callTool(c, name, { url, search: words });
  assert.equal(a.isError, false, a.text);
  return { ...a, hints: asList(a.fm.hint).map(String) };
}

Deno.test("records: search on an RFC record points at the rendered RFC", async () => {
  const a = await search(client, "https://www.rfc-editor.org/rfc/rfc2119", "interoperability");
  assert.equal(a.fm.content_type, "record");
  assert.equal(a.fm.matched_slices, "none");
  const h = a.hints.find((x) => x.startsWith("no slice matched"));
  assert.ok(h, a.hints.join("\n"));
  assert.match(h, /this page is the record \(metadata and abstract\), not the full text/);
  assert.match(h, /the full text is at https:\/\/www\.rfc-editor\.org\/rfc\/rfc2119\.html/);
  assert.match(h, /search=interoperability/);
  assert.doesNotMatch(h, /other spellings/);
  // The same words in the code profile: same wording, the parameter as MCP writes it.
  const b = await search(cli, "https://www.rfc-editor.org/rfc/rfc2119", "interoperability");
  assert.ok(b.hints.some((x) => x.includes("rfc2119.html")), b.hints.join("\n"));
});

Deno.test("records: a search that matches the record answers as usual", async () => {
  const a = await search(client, "https://www.rfc-editor.org/rfc/rfc2119", "standards");
  assert.notEqual(a.fm.matched_slices, "none");
  assert.ok(!a.hints.some((x) => x.includes("not the full text")));
});

Deno.test("records: a record without a full-text link says so", async () => {
  // The DOI record has no full_text link: no pointer to nowhere.
  const a = await search(client, "https://doi.org/10.5555/retracted.1", "zyzzyva");
  const h = a.hints.find((x) => x.startsWith("no slice matched"))!;
  assert.match(h, /the record .*links no full text/);
});

Deno.test({
  name: "records: search on an arXiv abstract points at its HTML full text (real capture)",
  ignore: !SHARED,
  async fn() {
    const a = await search(client, "https://arxiv.org/abs/1706.03762", "multi-head zyzzyva");
    const h = a.hints.find((x) => x.startsWith("no slice matched"))!;
    assert.match(h, /the full text is at https:\/\/arxiv\.org\/html\/1706\.03762v7/, h);
    assert.match(h, /search='?multi-head zyzzyva/);
  },
});

Deno.test("records: an arXiv /html/ full text is tracked on the shelf like its /abs/ record", async () => {
  const c = await connectServer({ name: "records-shelf" });
  try {
    const html = await callTool(c, "web_fetch_incisive", {
      url: "https://arxiv.org/html/2401.00001v1",
    });
    assert.equal(html.isError, false, html.text);
    assert.equal(html.fm.content_type, "html", "the full text, not the record");
    assert.equal(html.fm.api, "arXiv (HTML full text)");
    assert.equal(html.fm.arxiv_id, "2401.00001v1");
    assert.equal(html.fm.doi, "10.48550/arXiv.2401.00001");
    assert.match(String(html.fm.shelf), /tracked/, String(html.fm.shelf));
    assert.match(html.body.join("\n"), /median imaginary kettle boiled in 212 seconds/);
    const listed = await callTool(c, "research_shelf", { action: "list" });
    assert.match(listed.fences.flat().join("\n"), /Boiling Points of Imaginary Kettles/);
    assert.match(listed.fences.flat().join("\n"), /10\.48550\/arXiv\.2401\.00001/i);
    // The /abs/ record of the same paper is the same shelf entry.
    const abs = await callTool(c, "web_fetch_incisive", {
      url: "https://arxiv.org/abs/2401.00001v1",
    });
    assert.equal(abs.isError, false, abs.text);
    const again = await callTool(c, "research_shelf", { action: "list" });
    const rows = again.fences.flat().filter((l) => /Imaginary Kettles/.test(l));
    assert.equal(rows.length, 1, again.fences.flat().join("\n"));
    // Sections of the full text work as on any page.
    const results = await callTool(c, "web_fetch_incisive", {
      url: "https://arxiv.org/html/2401.00001v1",
      section: "Results",
    });
    assert.equal(results.fm.cached, true);
    assert.match(results.body.join("\n"), /212 seconds/);
  } finally {
    await c.close();
  }
});

Deno.test({
  name: "records: cleanup",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await cli.close();
  },
});
