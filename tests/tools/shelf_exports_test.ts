/**
 * The shelf's BibTeX and RIS exports as MCP resources whose text is the
 * file itself: the real server over stdio, a real client listing and
 * reading `research://shelf/export.bib` and `.ris` after an import, checked
 * against the export action's fenced entries (the same file, page by page).
 */
import assert from "node:assert/strict";
import { callTool, connectServer } from "../support/mcp_client.ts";

const record = (doi: string, title: string, extra: Record<string, unknown> = {}) => ({
  doi,
  title,
  authors: ["Doe, Jane"],
  year: 2020,
  venue: "Journal of Tests",
  kind: "article",
  ...extra,
});
const SAVED = JSON.stringify({
  active: {
    "10.1038/nature14539": record("10.1038/nature14539", "Deep learning", {
      authors: ["LeCun, Yann", "Bengio, Yoshua"],
      venue: "Nature",
    }),
    "10.17487/RFC9110": record("10.17487/RFC9110", "HTTP Semantics", {
      authors: ["Fielding, R."],
      year: 2022,
      venue: "IETF",
      kind: "rfc",
      rfc_number: 9110,
      source_tool: "ietf",
    }),
  },
  retracted: {
    "10.1016/S0140-6736(20)31180-6": record("10.1016/S0140-6736(20)31180-6", "Retracted study", {
      retraction: {
        kind: "retraction",
        notice_doi: "10.1016/S0140-6736(20)31324-6",
        date: "2020-06-05",
        source: "retraction-watch",
      },
    }),
  },
});

// The shelf's writing actions (import) are off unless enabled.
const client = await connectServer({
  replay: false,
  name: "shelf-exports",
  args: ["--enable-mutating-tools"],
});

const text = async (
  uri: string,
) => ((await client.readResource({ uri })).contents[0] as { text: string; mimeType?: string });

Deno.test("shelf exports: listed as resources with the files' media types", async () => {
  const { resources } = await client.listResources();
  const bib = resources.find((r) => r.uri === "research://shelf/export.bib");
  const ris = resources.find((r) => r.uri === "research://shelf/export.ris");
  assert.equal(bib?.mimeType, "application/x-bibtex");
  assert.equal(ris?.mimeType, "application/x-research-info-systems");
  assert.ok(resources.some((r) => r.uri === "research://shelf"), "beside the shelf itself");
});

Deno.test("shelf exports: the resource text is the file, the same as the export action's entries", async () => {
  assert.equal(
    (await text("research://shelf/export.bib")).text.trim(),
    "",
    "an empty shelf: an empty file",
  );
  const imported = await callTool(client, "research_shelf", { action: "import", data: SAVED });
  assert.equal(imported.isError, false, imported.text);
  for (
    const [format, uri] of [["bibtex", "research://shelf/export.bib"], [
      "ris",
      "research://shelf/export.ris",
    ]]
  ) {
    const file = await text(uri);
    assert.equal(
      file.mimeType,
      format === "bibtex" ? "application/x-bibtex" : "application/x-research-info-systems",
    );
    // No envelope: no frontmatter, no fence margins.
    assert.doesNotMatch(file.text, /^---|│|untrusted/m);
    const exported = await callTool(client, "research_shelf", { action: "export", format });
    assert.equal(exported.isError, false, exported.text);
    // The same entries; the fence trims line ends (RIS's "ER  - " keeps its space only here).
    const bare = (t: string) => t.split("\n").map((l) => l.trimEnd()).join("\n").trimEnd();
    assert.equal(bare(file.text), bare(exported.fences[0].join("\n")), format);
    assert.ok(
      String(exported.fm.see_also).includes(uri),
      `the export points at ${uri}: ${exported.fm.see_also}`,
    );
  }
  const bib = (await text("research://shelf/export.bib")).text;
  assert.match(bib, /^@article\{lecun2020,$/m);
  assert.match(bib, /title = \{\{Deep learning\}\}/);
  assert.match(bib, /HTTP Semantics/);
  assert.doesNotMatch(bib, /Retracted study/, "retracted works are not citable");
  const ris = (await text("research://shelf/export.ris")).text;
  assert.equal(ris.match(/^TY {2}- /gm)?.length, 2);
  assert.equal(ris.match(/^ER {2}- $/gm)?.length, 2, "RIS end tags keep their trailing space");
  assert.match(ris, /^DO {2}- 10\.1038\/nature14539$/m);
});

Deno.test({
  name: "shelf exports: cleanup",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
  },
});
