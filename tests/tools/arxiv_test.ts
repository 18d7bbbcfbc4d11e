/**
 * arXiv end to end: the real server over stdio, driven by the SDK client,
 * replaying `fixtures/http/arxiv` (hand-written exchanges from the API
 * manual, plus the shared real captures when PARKOUR_SHARED_DIR is set).
 * Covers the `arxiv` tool (search, category, paper), the interception of
 * abstract and PDF URLs by the page tools, and bad input and upstream
 * failures.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { sharedDir } from "../support/shared.ts";
import { envelopeReady } from "../../lib/envelope/frontmatter.ts";
import {
  type ArxivEntry,
  paperCitation,
  paperDocument,
  parseArxivFeed,
  parseArxivId,
  parseXml,
} from "../../lib/sources/arxiv.ts";
import {
  type Answer,
  asList,
  callTool,
  connectServer,
  frontmatterText,
} from "../support/mcp_client.ts";

const SHARED = sharedDir() !== undefined;
if (!SHARED) {
  console.log(
    "arxiv_test: PARKOUR_SHARED_DIR is not set; the tests on real arXiv captures are ignored",
  );
}

const connect = (env: Record<string, string> = {}, profile = "desktop"): Promise<Client> =>
  connectServer({ args: ["--profile", profile], env, name: "arxiv-test" });
const call = (c: Client, args: Record<string, unknown>, name = "arxiv"): Promise<Answer> =>
  callTool(c, name, args);

const client = await connect();
const jsonClient = await connect({ PARKOUR_DEFAULT_OUTPUT: "json" }, "code");

Deno.test("arxiv: listed with its actions and query syntax", async () => {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "arxiv");
  assert.ok(tool, "arxiv is listed");
  assert.match(tool.description ?? "", /ti: \(title\)/);
  assert.match(tool.description ?? "", /ANDNOT/);
  assert.match(tool.description ?? "", /web_fetch_incisive/);
  const { tools: codeTools } = await jsonClient.listTools();
  assert.ok(codeTools.some((t) => t.name === "ArXiv"), "PascalCase name in the code profile");
});

Deno.test("arxiv: a paper without HTML points at Semantic Scholar's snippets of its body", async () => {
  const s2 = await connect({ S2_ACCEPT_TOS: "1" });
  try {
    const snippets =
      "semantic_scholar with action=snippets query=<words> paper_id=ARXIV:hep-th/9711200";
    const a = await call(s2, { action: "paper", query: "arXiv:hep-th/9711200v3" });
    assert.equal(a.isError, false, a.text);
    assert.ok(asList(a.fm.hint).some((h) => String(h).includes(snippets)), String(a.fm.hint));
    // The page tools on its abstract page: the same pointer, and a search that finds nothing in
    // the record is sent there with its words.
    const url = "https://arxiv.org/abs/hep-th/9711200v3";
    const page = await call(s2, { url }, "web_fetch_incisive");
    assert.ok(asList(page.fm.hint).some((h) => String(h).includes(snippets)), page.text);
    const search = await call(s2, { url, search: "holography" }, "web_fetch_incisive");
    assert.ok(
      asList(search.fm.hint).some((h) =>
        String(h).includes(
          "semantic_scholar with action=snippets query=holography paper_id=ARXIV:hep-th/9711200",
        )
      ),
      search.text,
    );
  } finally {
    await s2.close();
  }
  // Without Semantic Scholar (its licence not accepted) nothing points at it.
  const a = await call(client, { action: "paper", query: "arXiv:hep-th/9711200v3" });
  assert.doesNotMatch(frontmatterText(a.text), /semantic_scholar|snippets/);
  // A paper with an HTML full text is read there instead.
  const html = await call(client, { action: "paper", query: "2401.00001" });
  assert.doesNotMatch(frontmatterText(html.text), /snippets/);
});

Deno.test("arxiv paper: old-style id with affiliation, publisher DOI, journal ref", async () => {
  const a = await call(client, { action: "paper", query: "arXiv:hep-th/9711200v3" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, "https://arxiv.org/abs/hep-th/9711200v3");
  assert.equal(a.fm.api, "arXiv");
  assert.equal(a.fm.action, "paper");
  assert.equal(a.fm.content_type, "record");
  assert.equal(a.fm.arxiv_id, "hep-th/9711200v3");
  assert.equal(a.fm.version, 3);
  assert.equal(a.fm.published, "1997-11-27T20:19:35Z");
  assert.equal(a.fm.updated, "1998-01-22T22:29:49Z");
  assert.equal(a.fm.primary_category, "hep-th");
  assert.equal(a.fm.doi, "10.48550/arXiv.hep-th/9711200");
  assert.equal(a.fm.publisher_doi, "10.1023/A:1026654312961");
  assert.equal(a.fm.full_text, undefined);
  assert.match(String(asList(a.fm.warning)[0]), /no HTML full text/);
  // CrossRef is down for the publisher DOI (a recorded 503): the answer says
  // that retractions could not be checked, in the DOI path's words.
  assert.ok(
    asList(a.fm.warning).includes(
      "CrossRef/DataCite metadata was unavailable (upstream error), so retractions, corrections, licence and ORCID iDs could not be checked",
    ),
    String(a.fm.warning),
  );
  assert.equal(a.fm.alert, undefined);
  assert.ok(
    asList(a.fm.see_also).includes(
      "https://doi.org/10.1023/A:1026654312961 for the published version",
    ),
  );
  assert.ok(
    asList(a.fm.see_also).some((s) => String(s).includes("10.48550/arXiv.hep-th/9711200")),
    "without a formatted citation, doi.org is offered for one",
  );
  assert.equal(typeof a.fm.shelf, "string", "a paper lookup is shelved");
  // Titles, names and abstracts stay in the fence.
  const head = frontmatterText(a.text);
  assert.ok(!head.includes("Large N"), "the title is not in the frontmatter");
  assert.ok(!head.includes("Maldacena"), "author names are not in the frontmatter");
  assert.equal(a.body[0], "# The Large N Limit of Superconformal Field Theories and Supergravity");
  assert.ok(a.body.includes("**Authors:** Juan M. Maldacena (Harvard University)"));
  assert.ok(a.body.includes("**Published:** 1997-11-27 (v1)"));
  assert.ok(a.body.includes("**Updated:** 1998-01-22 (v3)"));
  assert.ok(a.body.includes("**Journal ref:** Adv.Theor.Math.Phys.2:231-252,1998"));
  assert.ok(
    a.body.includes(
      "**Publisher DOI:** [10.1023/A:1026654312961](https://doi.org/10.1023/A:1026654312961)",
    ),
  );
  assert.ok(a.body.includes("## Abstract"));
  assert.ok(
    a.body.some((l) => l.endsWith("<b>Not markup</b> & more.")),
    "entities decoded once, markup kept as text",
  );
});

Deno.test("arxiv interception: a PDF URL gives the record with a note; abs URLs hit the cache", async () => {
  const pdf = await call(
    client,
    { url: "https://arxiv.org/pdf/hep-th/9711200" },
    "web_fetch_incisive",
  );
  assert.equal(pdf.isError, false, pdf.text);
  assert.equal(pdf.fm.source, "https://arxiv.org/pdf/hep-th/9711200");
  assert.equal(pdf.fm.content_type, "record");
  assert.equal(pdf.fm.api, "arXiv");
  assert.equal(pdf.fm.arxiv_id, "hep-th/9711200v3", "the API names the latest version");
  assert.ok(asList(pdf.fm.note).some((n) => /PDF link/.test(String(n))), pdf.text);
  assert.equal(typeof pdf.fm.shelf, "string", "interception shelves the paper too");
  assert.ok(pdf.body.includes("**Authors:** Juan M. Maldacena (Harvard University)"));

  // The arxiv tool loaded this abs URL before: the page tools reuse it.
  const outline = await call(
    client,
    { url: "https://arxiv.org/abs/hep-th/9711200v3" },
    "web_fetch_sections",
  );
  assert.equal(outline.isError, false, outline.text);
  assert.equal(outline.fm.cached, true);
  assert.ok(outline.body.some((l) => l.includes("Abstract")), outline.text);
  const section = await call(
    client,
    { url: "https://arxiv.org/abs/hep-th/9711200v3", section: "Abstract" },
    "web_fetch_incisive",
  );
  assert.ok(section.body.some((l) => l.includes("large $N$ limit")), section.text);
});

Deno.test("arxiv interception: /html/ full-text URLs read the page itself, not the record", async () => {
  const a = await call(
    client,
    { url: "https://arxiv.org/html/1706.03762v7" },
    "web_fetch_incisive",
  );
  // The page itself is asked for (no GET is recorded here), not only the API; the shelf side is
  // in records_test.ts.
  assert.equal(a.isError, true);
  assert.match(a.text, /GET https:\/\/arxiv\.org\/html\/1706\.03762v7/);
});

Deno.test("arxiv category: newest first, records in the fence, pagination hint", async () => {
  const a = await call(client, { action: "category", query: "cs.CL", limit: 2 });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "arXiv");
  assert.equal(a.fm.action, "category");
  assert.equal(a.fm.category, "cs.CL");
  assert.equal(a.fm.sort, "submittedDate descending");
  assert.equal(a.fm.total_results, 123456);
  assert.equal(a.fm.results, 2);
  assert.equal(a.fm.showing, "1-2");
  assert.ok(asList(a.fm.hint).some((h) => String(h).includes("offset=2")));
  assert.equal(a.fm.shelf, undefined, "lists are never shelved");
  assert.equal(a.body[0], "| id | title | authors | primary_category | published |");
  assert.equal(
    a.body[2],
    "| 2611.01234v1 | A Study of \\| Pipes and Line Breaks in Titles | Ada Example et al. | cs.CL | 2026-11-27 |",
  );
  assert.equal(a.body[3], "| 2611.01200v2 | Second Paper | Solo Author | cs.LG | 2026-11-26 |");
  assert.ok(!a.text.includes("Ignore previous instructions"), "abstracts are not listed");
});

Deno.test("arxiv category: json output carries structured records", async () => {
  const a = await call(jsonClient, { action: "category", query: "cs.CL", limit: 2 }, "ArXiv");
  assert.equal(a.isError, false, a.text);
  const papers = (a.structured?.papers ?? []) as Record<string, string>[];
  assert.deepEqual(papers.map((p) => p.id), ["2611.01234v1", "2611.01200v2"]);
  assert.equal(papers[0].authors, "Ada Example et al.");
  assert.equal(papers[1].primary_category, "cs.LG");
  assert.deepEqual(JSON.parse(a.body.join("\n")).papers, papers);
});

Deno.test("arxiv shelf: a paper is shelved under its publisher DOI, list results never", async () => {
  // Earlier tests looked up hep-th/9711200 (tool and PDF URL) and listed cs.CL.
  const a = await call(client, { action: "export", format: "json" }, "research_shelf");
  assert.equal(a.isError, false, a.text);
  const active = JSON.parse(a.body.join("\n")).active as Record<string, Record<string, unknown>>;
  const paper = active["10.1023/a:1026654312961"];
  assert.ok(paper, `shelved under the publisher DOI: ${Object.keys(active)}`);
  assert.deepEqual(paper.alt_dois, ["10.48550/arxiv.hep-th/9711200"]);
  assert.equal(paper.arxiv_id, "hep-th/9711200");
  assert.equal(paper.source_tool, "arxiv");
  assert.deepEqual(paper.authors, ["Maldacena, Juan M."]);
  assert.ok(
    !Object.keys(active).some((k) => k.includes("2611.")),
    "category results are not shelved",
  );
});

Deno.test("arxiv search: no match gives a hint, not an error; limit above 100 is lowered", async () => {
  const a = await call(client, { action: "search", query: "ti:zzqxjv" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.total_results, 0);
  assert.equal(a.fm.query, "ti:zzqxjv");
  assert.match(String(asList(a.fm.hint)[0]), /no papers matched/);
  const b = await call(client, { action: "search", query: "ti:zzqxjv", limit: 500 });
  assert.equal(b.isError, false, b.text);
  assert.ok(asList(b.fm.note).some((n) => /lowered to 100/.test(String(n))), b.text);
});

Deno.test("arxiv bad input: malformed id, category and empty query say what is accepted", async () => {
  const bad = await call(client, { action: "paper", query: "1706.03762; rm -rf" });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /not an arXiv identifier/);
  assert.match(bad.text, /2301\.01234v2, hep-th\/9901001/);
  const url = await call(client, { action: "paper", query: "https://example.org/abs/1706.03762" });
  assert.equal(url.isError, true);
  assert.match(url.text, /accepted forms/);
  const cat = await call(client, { action: "category", query: "cs CL!" });
  assert.equal(cat.isError, true);
  assert.match(cat.text, /not an arXiv category code/);
  const empty = await call(client, { action: "search", query: "  " });
  assert.equal(empty.isError, true);
  assert.match(empty.text, /search needs a query/);
  const neg = await call(client, { action: "search", query: "x", offset: -1 });
  assert.equal(neg.isError, true);
});

Deno.test("arxiv upstream failures: missing paper, 503, malformed XML, DOCTYPE", async () => {
  const missing = await call(client, { action: "paper", query: "2301.99999" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /no arXiv paper has the identifier 2301\.99999/);

  const start = Date.now();
  const busy = await call(client, { action: "paper", query: "2301.00001" });
  assert.equal(busy.isError, true);
  assert.match(busy.text, /arXiv API returned HTTP 503 \(overloaded\); try again in a minute/);
  assert.ok(Date.now() - start < 5000, "replayed retries do not wait for real");

  const cut = await call(client, { action: "paper", query: "2301.00002" });
  assert.equal(cut.isError, true);
  assert.match(cut.text, /malformed XML/);
  assert.match(cut.text, /try again/);

  const bomb = await call(
    client,
    { url: "https://arxiv.org/abs/2301.00003" },
    "web_fetch_incisive",
  );
  assert.equal(bomb.isError, true);
  assert.match(bomb.text, /DOCTYPE/);
  assert.ok(!bomb.text.includes("aaaaaaaaaa"), "the entity is never expanded");

  // The server is still answering.
  const again = await call(client, { action: "search", query: "ti:zzqxjv" });
  assert.equal(again.isError, false);
});

Deno.test({
  name: "arxiv paper (real capture): Attention Is All You Need with its HTML full text",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, { action: "paper", query: "https://arxiv.org/abs/1706.03762" });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.arxiv_id, "1706.03762v7");
    assert.equal(a.fm.version, 7);
    assert.equal(a.fm.doi, "10.48550/arXiv.1706.03762");
    assert.equal(a.fm.publisher_doi, undefined);
    assert.equal(a.fm.full_text, "https://arxiv.org/html/1706.03762v7");
    assert.equal(a.fm.warning, undefined);
    assert.equal(a.fm.primary_category, "cs.CL");
    assert.ok(
      asList(a.fm.hint).some((h) =>
        String(h).includes("web_fetch_incisive on https://arxiv.org/html/1706.03762v7")
      ),
    );
    assert.equal(a.body[0], "# Attention Is All You Need");
    assert.ok(a.body.some((l) => l.startsWith("**Authors:** Ashish Vaswani, Noam Shazeer")));
    assert.ok(a.body.includes("**Other categories:** cs.LG"));
    assert.ok(a.body.includes("**Comment:** 15 pages, 5 figures"));
    assert.ok(a.body.includes("**HTML full text:** https://arxiv.org/html/1706.03762v7"));
    assert.ok(a.body.some((l) => l.startsWith("The dominant sequence transduction models")));
  },
});

Deno.test({
  name: "arxiv interception (real capture): abs URL of a paper without HTML full text",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, { url: "https://arxiv.org/abs/1707.08567" }, "web_fetch_incisive");
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.content_type, "record");
    assert.equal(a.fm.arxiv_id, "1707.08567v1");
    assert.match(String(asList(a.fm.warning)[0]), /no HTML full text/);
    assert.equal(a.fm.primary_category, "cs.IT");
    const authors = a.body.find((l) => l.startsWith("**Authors:**")) ?? "";
    assert.equal(authors.split(", ").length, 34);
    assert.ok(!a.body.some((l) => l.startsWith("**Updated:**")), "one version: no update line");
  },
});

Deno.test({
  name: "arxiv paper (real capture): HTTP 400 for an id arXiv refuses shows the accepted forms",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, { action: "paper", query: "abc" });
    assert.equal(a.isError, true);
    assert.match(a.text, /arXiv refused the identifier abc/);
    assert.match(a.text, /accepted forms: 2301\.01234, 2301\.01234v2, hep-th\/9901001/);
    assert.match(a.text, /incorrect id format for abc/, "arXiv's own explanation, fenced");
  },
});

Deno.test({
  name: "arxiv search (real capture): records, totals and sort parameters",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, {
      action: "search",
      query: "testing",
      sort_by: "relevance",
      sort_order: "descending",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.total_results, 214881);
    assert.equal(a.fm.results, 10);
    assert.equal(a.fm.showing, "1-10");
    assert.equal(a.body.length, 12, "header, rule and ten rows");
    assert.equal(
      a.body[2],
      "| 2202.12139v1 | Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques | Mohit Kumar Ahuja et al. | cs.SE | 2022-02-24 |",
    );
    assert.equal(a.fm.shelf, undefined, "search results are never shelved");
  },
});

Deno.test("arxiv ids: the accepted forms, and what is left to the API or refused", () => {
  const forms: [string, string, string, number | undefined][] = [
    ["2301.01234", "2301.01234", "2301.01234", undefined],
    ["2301.01234v2", "2301.01234v2", "2301.01234", 2],
    ["0704.0001", "0704.0001", "0704.0001", undefined],
    ["hep-th/9901001", "hep-th/9901001", "hep-th/9901001", undefined],
    ["math.GT/0309136v1", "math.GT/0309136v1", "math.GT/0309136", 1],
    [" arXiv:2301.01234 ", "2301.01234", "2301.01234", undefined],
    ["https://arxiv.org/abs/1706.03762v7", "1706.03762v7", "1706.03762", 7],
    ["https://arxiv.org/pdf/1706.03762v7.pdf", "1706.03762v7", "1706.03762", 7],
    ["http://export.arxiv.org/abs/hep-th/9711200", "hep-th/9711200", "hep-th/9711200", undefined],
    ["https://doi.org/10.48550/arXiv.2301.01234", "2301.01234", "2301.01234", undefined],
  ];
  for (const [input, id, base, version] of forms) {
    const parsed = parseArxivId(input);
    assert.deepEqual(parsed, { id, base, version, strict: true }, input);
  }
  assert.equal(parseArxivId("abc")?.strict, false, "left for the API to judge");
  for (
    const bad of [
      "",
      "1706.03762; rm -rf",
      "https://example.org/abs/1706.03762",
      "a b",
      "x".repeat(80),
    ]
  ) {
    assert.equal(parseArxivId(bad), undefined, bad);
  }
});

Deno.test("arxiv xml: entities decoded once, hostile and broken XML refused", () => {
  const el = parseXml(
    '<a xmlns="urn:x" xmlns:p="urn:p"><p:b k="&amp;lt;">&#x41;&lt;&amp;<![CDATA[<raw>]]></p:b></a>',
  );
  assert.equal(el.ns, "urn:x");
  const b = el.children[0] as { ns: string; attrs: Record<string, string>; children: string[] };
  assert.equal(b.ns, "urn:p");
  assert.equal(b.attrs.k, "&lt;");
  assert.equal(b.children.join(""), "A<&<raw>");
  for (
    const bad of [
      '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>',
      "<a>&x;</a>",
      "<a>fish & chips</a>",
      "<a><b></a></b>",
      "<a>",
      "<a></a><b></b>",
      "<q:a></q:a>",
      "text",
      "",
      "<a>&#0;</a>",
    ]
  ) {
    assert.throws(() => parseXml(bad), { name: "ContentError" }, bad);
  }
  assert.throws(() => parseArxivFeed("<rss></rss>"), /not an Atom feed/);
});

const ENTRY: ArxivEntry = {
  id: "2101.00001v2",
  base: "2101.00001",
  version: 2,
  title: "A Paper",
  summary: "Abstract.",
  authors: [{ name: "Jan van der Berg", affiliations: [] }, {
    name: "Ada Lovelace",
    affiliations: [],
  }],
  categories: ["cs.CL"],
  primaryCategory: "cs.CL",
  published: "2021-01-01T00:00:00Z",
  updated: "2021-02-01T00:00:00Z",
  doi: "10.1000/J.Example.1",
  journalRef: "J. Example 1 (2021)",
};

Deno.test("arxiv shelf record: publisher DOI primary, arXiv DOI alternate, names family first", () => {
  const c = paperCitation({ entry: ENTRY, html: true });
  assert.equal(c.doi, "10.1000/j.example.1");
  assert.deepEqual(c.altDois, ["10.48550/arxiv.2101.00001"]);
  assert.deepEqual(c.authors, ["van der Berg, Jan", "Lovelace, Ada"]);
  assert.equal(c.year, 2021);
  assert.equal(c.kind, "article");
  assert.equal(c.arxivId, "2101.00001");
  assert.equal(c.sourceTool, "arxiv");
  const preprint = paperCitation({ entry: { ...ENTRY, doi: undefined, journalRef: undefined } });
  assert.equal(preprint.doi, "10.48550/arxiv.2101.00001");
  assert.deepEqual(preprint.altDois, []);
  assert.equal(preprint.kind, "preprint");
});

Deno.test("arxiv enrichment: a retraction is an alert and a banner, a correction a note", async () => {
  await envelopeReady();
  const doc = paperDocument(
    {
      entry: ENTRY,
      html: false,
      citation: "Berg, J. v. d. (2021). A Paper. arXiv.",
      enrichment: {
        relations: { has_version: ["10.1000/J.Example.1v2"] },
        retraction: {
          kind: "retraction",
          noticeDoi: "10.1000/retraction.9",
          date: "2022-03-04",
          source: "publisher",
        },
        correction: { noticeDoi: "10.1000/erratum.2", date: "2021-06" },
      },
    },
    "https://arxiv.org/abs/2101.00001v2",
  );
  const facts = (key: string) => doc.facts.filter((f) => f.key === key).map((f) => String(f.value));
  assert.deepEqual(facts("alert"), [
    "retracted 2022-03-04 — notice: 10.1000/retraction.9 (publisher)",
  ]);
  assert.deepEqual(facts("note"), ["correction published 2021-06 — notice: 10.1000/erratum.2"]);
  assert.ok(!facts("see_also").some((s) => s.includes("formatted citation")), "citation present");
  assert.match(
    doc.markdown,
    /^> \*\*RETRACTED\*\* \(2022-03-04\): notice https:\/\/doi\.org\/10\.1000\/retraction\.9/,
  );
  assert.match(doc.markdown, /## Citation\n\nBerg, J\. v\. d\. \(2021\)/);
  assert.deepEqual(doc.citation?.retraction?.noticeDoi, "10.1000/retraction.9");
  assert.deepEqual(doc.citation?.altDois, ["10.48550/arxiv.2101.00001", "10.1000/j.example.1v2"]);
});

Deno.test({
  name: "arxiv: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await jsonClient.close();
  },
});
