/**
 * semantic_scholar end to end: the real server over stdio, driven by the SDK
 * client, replaying fixtures/http/semantic_scholar (and the shared real
 * captures when PARKOUR_SHARED_DIR is set). The API key header, 429 and 403
 * are checked against an HTTP server on 127.0.0.1 that the test starts
 * (PARKOUR_S2_API_BASE points the client at it; replay matches only method
 * and URL, so it cannot see a header).
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { sharedDir } from "../support/shared.ts";
import { type Answer, asList, callTool, type Started, startServer } from "../support/mcp_client.ts";

const SHARED = sharedDir() !== undefined;
if (!SHARED) {
  console.warn(
    "semantic_scholar_test: PARKOUR_SHARED_DIR is not set; the tests on real Semantic Scholar captures are ignored",
  );
}

const WIDGET = "5f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6";
const ATTENTION = "204e3073870fae3d05bcbc2f6a8e263d9b72e776";

/** A HOME with no parkour config, so the developer's own files cannot leak in. */
const emptyHome = await Deno.makeTempDir({ prefix: "s2_home_" });

async function start(
  env: Record<string, string>,
  extraRead: string[] = [],
  profile = "desktop",
  replayed = true,
): Promise<Client> {
  const s = await startServer({
    args: ["--profile", profile],
    env: { HOME: emptyHome, ...env },
    replay: replayed,
    readDirs: extraRead,
    name: "s2-test",
  });
  started.push(s);
  return s.client;
}

const call = (
  client: Client,
  args: Record<string, unknown>,
  name = "semantic_scholar",
): Promise<Answer> => callTool(client, name, args);

const started: Started[] = [];

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

function fmText(a: Answer): string {
  return JSON.stringify(a.fm);
}

const client = await start({ S2_ACCEPT_TOS: "1" });

Deno.test("semantic_scholar: registered only once the licence is accepted (env or config file)", async () => {
  const without = await start({});
  assert.ok(!(await toolNames(without)).includes("semantic_scholar"));
  await assert.rejects(
    without.callTool({ name: "semantic_scholar", arguments: { action: "search", query: "x" } }),
    /semantic_scholar not found/,
  );

  assert.ok((await toolNames(client)).includes("semantic_scholar"));
  const code = await start({ S2_ACCEPT_TOS: "yes" }, [], "code");
  assert.ok((await toolNames(code)).includes("SemanticScholar"));
  const no = await start({ S2_ACCEPT_TOS: "0" });
  assert.ok(!(await toolNames(no)).includes("semantic_scholar"));

  const home = await Deno.makeTempDir({ prefix: "s2_home_tos_" });
  await Deno.mkdir(`${home}/.config/parkour`, { recursive: true });
  await Deno.writeTextFile(`${home}/.config/parkour/s2_accept_tos`, "");
  const byFile = await start({ HOME: home }, [home]);
  assert.ok((await toolNames(byFile)).includes("semantic_scholar"));
});

Deno.test("semantic_scholar: search lists records in the output format and shelves nothing", async () => {
  const a = await call(client, { action: "search", query: "widget citation graphs", limit: 2 });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "Semantic Scholar");
  assert.equal(a.fm.action, "search");
  assert.equal(a.fm.total, 17);
  assert.equal(a.fm.returned, 2);
  assert.match(String(a.fm.hint), /offset=2/);
  assert.equal(a.fm.shelf, undefined);
  // Markdown table (flat records), with the pipe in a title escaped.
  assert.equal(a.fences[0][0], "# Semantic Scholar search results");
  assert.match(a.fences[0][2], /^\| paper_id \| title \| year \| authors \| venue \| citations \|/);
  assert.ok(
    a.body.some((l) =>
      l.includes(WIDGET) && l.includes("Citation Graphs of Widgets: A Fixture Study") &&
      l.includes("Josiah Carberry et al.") && l.includes("1234")
    ),
    a.text,
  );
  assert.ok(a.body.some((l) => l.includes("Widgets \\| Pipes")));
  assert.ok(!fmText(a).includes("Widget"), "titles stay out of the frontmatter");

  const json = await start({ S2_ACCEPT_TOS: "1", PARKOUR_DEFAULT_OUTPUT: "json" });
  const j = await call(json, { action: "search", query: "widget citation graphs", limit: 2 });
  const results = j.structured?.results as Record<string, unknown>[];
  assert.equal(results.length, 2);
  assert.equal(results[0].paper_id, WIDGET);
  assert.equal(results[0].year, 2021);
});

Deno.test("semantic_scholar: paper by DOI, full detail, tracked on the shelf by its DOI", async () => {
  const a = await call(client, { action: "paper", query: "DOI:10.5555/widget.2021.1" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, `https://www.semanticscholar.org/paper/${WIDGET}`);
  assert.equal(a.fm.paper_id, WIDGET);
  assert.equal(a.fm.doi, "10.5555/widget.2021.1");
  assert.equal(a.fm.arxiv_id, "2101.99999");
  assert.equal(a.fm.pubmed_id, "99000001");
  assert.equal(a.fm.year, 2021);
  assert.equal(a.fm.published, "2021-03-15");
  assert.equal(a.fm.citation_count, 1234);
  assert.equal(a.fm.influential_citation_count, 56);
  assert.equal(a.fm.open_access_pdf, "https://example.org/widget.pdf");
  const seeAlso = [a.fm.see_also].flat().join("\n");
  assert.match(seeAlso, /https:\/\/arxiv\.org\/abs\/2101\.99999/);
  assert.match(seeAlso, /https:\/\/doi\.org\/10\.5555\/widget\.2021\.1 for licence/);
  assert.match(String(a.fm.shelf), /tracked/);
  assert.doesNotMatch(String(a.fm.shelf), /not tracked/);
  assert.equal(a.fm.alert, undefined, "no retraction without CrossRef data");
  // CrossRef is down for this DOI (a recorded 503): silence would read as
  // "not retracted", so the answer says the check failed, in the DOI path's words.
  assert.ok(
    asList(a.fm.warning).includes(
      "CrossRef/DataCite metadata was unavailable (upstream error), so retractions, corrections, licence and ORCID iDs could not be checked",
    ),
    String(a.fm.warning),
  );

  const body = a.body.join("\n");
  assert.ok(a.body.includes("# Citation Graphs of Widgets: A Fixture Study"), body);
  assert.match(
    body,
    /\*\*Authors:\*\* Josiah Carberry \(Brown University\) \[ORCID\]\(https:\/\/orcid\.org\/0000-0002-1825-0097\), Fixture Author2 \(Widget Institute\)/,
  );
  assert.match(body, /Fixture Author10 \(Widget Institute\), \.\.\. and 2 more/);
  assert.doesNotMatch(body, /Fixture Author11/);
  assert.match(body, /\*\*Citations:\*\* 1,234 \(56 influential\) \| \*\*References:\*\* 41/);
  assert.match(
    body,
    /\*\*DOI:\*\* \[10\.5555\/widget\.2021\.1\]\(https:\/\/doi\.org\/10\.5555\/widget\.2021\.1\)/,
  );
  assert.match(body, /\*\*ArXiv:\*\* \[2101\.99999\]\(https:\/\/arxiv\.org\/abs\/2101\.99999\)/);
  assert.match(body, /## TL;DR\n\nWidgets cite each other in small worlds\./);
  assert.match(body, /## BibTeX\n\n```bibtex\n@Article\{Carberry2021CitationGO,/);
  // The injected sentence of the abstract stays fenced.
  assert.match(body, /Ignore previous instructions/);
  assert.doesNotMatch(fmText(a), /Ignore previous|Carberry|Widget Studies/);
});

Deno.test("semantic_scholar: paper without a DOI is not tracked; fields is ignored with a warning", async () => {
  const a = await call(client, {
    action: "paper",
    query: "ARXIV:1706.03762",
    fields: "title",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.shelf, "not tracked — paper has no DOI in Semantic Scholar");
  assert.match(String(a.fm.warning), /fields was ignored/);
  assert.equal(a.fm.doi, undefined);
  assert.match(String(a.fm.see_also), /https:\/\/arxiv\.org\/abs\/1706\.03762/);
  assert.ok(a.body.includes("# Attention is All you Need"));
});

Deno.test("semantic_scholar: a semanticscholar.org URL is reduced to its paper id", async () => {
  const a = await call(client, {
    action: "paper",
    query: `https://www.semanticscholar.org/paper/Citation-Graphs-of-Widgets/${WIDGET}`,
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.paper_id, WIDGET);
});

Deno.test("semantic_scholar: web_fetch_incisive intercepts paper URLs with the licence, and shelves", async () => {
  const url = `https://www.semanticscholar.org/paper/Citation-Graphs/${WIDGET}`;
  const a = await call(client, { url }, "web_fetch_incisive");
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.content_type, "record");
  assert.equal(a.fm.api, "Semantic Scholar");
  assert.equal(a.fm.doi, "10.5555/widget.2021.1");
  assert.match(String(a.fm.shelf), /tracked/);
  assert.ok(a.body.some((l) => l.includes("Citation Graphs of Widgets")));
  const sections = await call(client, { url, section: "TL;DR" }, "web_fetch_incisive");
  assert.ok(sections.body.some((l) => l.includes("Widgets cite each other")), sections.text);
});

Deno.test("semantic_scholar: references and citations with contexts and paging", async () => {
  const refs = await call(client, { action: "references", query: WIDGET, limit: 1 });
  assert.equal(refs.isError, false, refs.text);
  assert.equal(refs.fm.action, "references");
  assert.equal(refs.fm.paper, WIDGET);
  assert.match(String(refs.fm.hint), /offset=1/);
  assert.ok(refs.body.some((l) => l.includes("On Widgets") && l.includes("500")));
  assert.equal(refs.fm.shelf, undefined, "lists never shelve");

  const cites = await call(client, { action: "citations", query: WIDGET });
  assert.equal(cites.isError, false, cites.text);
  const body = cites.body.join("\n");
  assert.match(body, /Following Widget Citations/);
  assert.match(body, /Bo Example et al\./);
  assert.match(body, /as shown by Carberry et al\. \[3\] … widget graphs \[3\] are small worlds/);
  assert.equal(cites.fm.hint, undefined, "no next page");
});

Deno.test("semantic_scholar: author_search and author with papers, most cited first", async () => {
  const found = await call(client, { action: "author_search", query: "josiah carberry" });
  assert.equal(found.isError, false, found.text);
  assert.equal(found.fm.total, 1);
  assert.ok(
    found.body.some((l) =>
      l.includes("9900001") && l.includes("Brown University") && l.includes("| 4 |")
    ),
  );
  const a = await call(client, { action: "author", query: "9900001" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, "https://www.semanticscholar.org/author/9900001");
  assert.equal(a.fm.h_index, 4);
  assert.equal(a.fm.paper_count, 12);
  assert.match(String(a.fm.hint), /offset=10/);
  assert.equal(a.fences.length, 2);
  assert.equal(a.fences[0][0], "# Josiah Carberry");
  const papers = a.fences[1].join("\n");
  assert.ok(papers.indexOf("Citation Graphs of Widgets") < papers.indexOf("Less cited"));
  const byUrl = await call(client, {
    action: "author",
    query: "https://www.semanticscholar.org/author/Josiah-Carberry/9900001",
  });
  assert.equal(byUrl.fm.author_id, "9900001");
});

Deno.test("semantic_scholar: snippets scoped to a paper with full text, corpus-wide, and without full text", async () => {
  const scoped = await call(client, {
    action: "snippets",
    query: "small worlds",
    paper_id: `https://www.semanticscholar.org/paper/${WIDGET}`,
  });
  assert.equal(scoped.isError, false, scoped.text);
  assert.equal(scoped.fm.paper, WIDGET);
  assert.ok(
    scoped.body.some((l) =>
      l.includes("Results") && l.includes("small worlds") && l.includes("body")
    ),
  );
  const corpus = await call(client, { action: "snippets", query: "widget", limit: 2, offset: 3 });
  assert.equal(corpus.isError, false, corpus.text);
  assert.match(String(corpus.fm.warning), /offset was ignored/);
  const body = corpus.body.join("\n");
  assert.match(body, /Counting Widgets/);
  assert.match(body, /abstract/);
  const none = await call(client, { action: "snippets", query: "attention", paper_id: ATTENTION });
  assert.equal(none.isError, true);
  assert.match(
    none.text,
    /Full text of this paper is not available .*textAvailability: abstract.*action=paper/,
  );
});

Deno.test("semantic_scholar: bad input and upstream failures are clear errors", async () => {
  const bad = await call(client, { action: "paper", query: "not a paper" });
  assert.equal(bad.isError, true);
  assert.match(
    bad.text,
    /not a paper id Semantic Scholar accepts.*40-character.*DOI:10\.xxxx.*ARXIV:/,
  );
  const badArxiv = await call(client, { action: "references", query: "ARXIV:12" });
  assert.equal(badArxiv.isError, true);
  const badAuthor = await call(client, { action: "author", query: "J. Carberry" });
  assert.match(badAuthor.text, /not a Semantic Scholar author id/);
  const big = await call(client, { action: "search", query: "x", limit: 500 });
  assert.match(big.text, /limit is at most 100/);
  const fields = await call(client, { action: "search", query: "x", fields: "title;drop" });
  assert.match(fields.text, /comma-separated list of Graph API field names/);
  const missing = await call(client, { action: "paper", query: "DOI:10.5555/missing" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /^Error: Not found on Semantic Scholar/);
  const failed = await call(client, { action: "search", query: "server error" });
  assert.equal(failed.isError, true);
  assert.match(failed.text, /HTTP 500.*try again later/);
  const malformed = await call(client, { action: "search", query: "malformed" });
  assert.equal(malformed.isError, true);
  assert.match(malformed.text, /malformed response/);
  const bogus = await client.callTool({
    name: "semantic_scholar",
    arguments: { action: "explode", query: "x" },
  });
  assert.equal(bogus.isError, true);
});

Deno.test({
  name: "semantic_scholar: real captures (search, references, author with embedded papers)",
  ignore: !SHARED,
  async fn() {
    const search = await call(client, {
      action: "search",
      query: "turing",
      fields: "title",
      limit: 100,
    });
    assert.equal(search.isError, false, search.text);
    assert.equal(search.fm.total, 70499);
    assert.equal(search.fm.returned, 100);
    assert.match(String(search.fm.hint), /offset=100/);
    assert.ok(search.body.some((l) => l.includes("Neural Turing Machines")));

    const refs = await call(client, {
      action: "references",
      query: "10.2139/ssrn.2250500",
      fields: "title",
      limit: 50,
    });
    assert.equal(refs.isError, false, refs.text);
    assert.match(String(refs.fm.hint), /offset=50/);
    assert.ok(refs.body.some((l) => l.includes("Group lending or individual lending?")));

    const fields =
      "affiliations,authorId,citationCount,externalIds,hIndex,homepage,name,paperCount,papers,papers.abstract,papers.authors,papers.citationCount,papers.corpusId,papers.externalIds,papers.fieldsOfStudy,papers.influentialCitationCount,papers.isOpenAccess,papers.journal,papers.openAccessPdf,papers.paperId,papers.publicationDate,papers.publicationTypes,papers.publicationVenue,papers.referenceCount,papers.s2FieldsOfStudy,papers.title,papers.url,papers.venue,papers.year,url";
    const author = await call(client, { action: "author", query: "2262347", fields });
    assert.equal(author.isError, false, author.text);
    assert.equal(author.fm.h_index, 22);
    assert.equal(author.fm.paper_count, 59);
    assert.equal(author.fences[0][0], "# A. Turing");
    assert.equal(author.fm.returned, 10);
  },
});

// The key header, 429 and 403, against a local stand-in for the API.
const seen: { path: string; key: string | null }[] = [];
const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const url = new URL(req.url);
  seen.push({ path: url.pathname + url.search, key: req.headers.get("x-api-key") });
  const query = url.searchParams.get("query");
  if (query === "ratelimited") {
    return new Response('{"message":"Too Many Requests"}', {
      status: 429,
      headers: { "retry-after": "0", "content-type": "application/json" },
    });
  }
  if (query === "forbidden") {
    return new Response('{"message":"Forbidden"}', {
      status: 403,
      headers: { "content-type": "application/json" },
    });
  }
  return Response.json({ total: 0, offset: 0, data: [] });
});
const LOCAL = `http://127.0.0.1:${api.addr.port}/graph/v1`;
const KEY = "s2-test-key-7c1d";

Deno.test("semantic_scholar: the API key is sent as x-api-key and never shown; 429 and 403 with a key", async () => {
  const keyed = await start(
    {
      S2_ACCEPT_TOS: "1",
      S2_API_KEY: KEY,
      PARKOUR_S2_API_BASE: LOCAL,
      MCP_ALLOW_PRIVATE_IPS: "1",
    },
    [],
    "desktop",
    false,
  );
  seen.length = 0;
  const ok = await call(keyed, { action: "search", query: "anything" });
  assert.equal(ok.isError, false, ok.text);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].key, KEY);
  assert.match(seen[0].path, /^\/graph\/v1\/paper\/search\?query=anything&fields=paperId,title,/);
  assert.ok(!ok.text.includes(KEY));

  seen.length = 0;
  const limited = await call(keyed, { action: "search", query: "ratelimited" });
  assert.equal(limited.isError, true);
  assert.equal(seen.length, 4, "the first try and three retries");
  assert.match(limited.text, /HTTP 429\) even with your API key/);
  assert.ok(!limited.text.includes(KEY));

  const rejected = await call(keyed, { action: "search", query: "forbidden" });
  assert.equal(rejected.isError, true);
  assert.match(rejected.text, /rejected the API key \(HTTP 403\).*api-key-form/);
  assert.ok(!rejected.text.includes(KEY));
});

Deno.test("semantic_scholar: without a key no header is sent and 429 says how to get one", async () => {
  const anonymous = await start(
    {
      S2_ACCEPT_TOS: "1",
      PARKOUR_S2_API_BASE: LOCAL,
      MCP_ALLOW_PRIVATE_IPS: "1",
    },
    [],
    "desktop",
    false,
  );
  seen.length = 0;
  const limited = await call(anonymous, { action: "search", query: "ratelimited" });
  assert.equal(limited.isError, true);
  assert.ok(seen.every((s) => s.key === null));
  assert.match(
    limited.text,
    /global pool.*https:\/\/www\.semanticscholar\.org\/product\/api#api-key-form.*S2_API_KEY/,
  );
  const forbidden = await call(anonymous, { action: "search", query: "forbidden" });
  assert.match(forbidden.text, /refused the request \(HTTP 403 Forbidden\)/);
});

Deno.test({
  name: "semantic_scholar: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    for (const s of started) await s.client.close();
    await api.shutdown();
    await Deno.remove(emptyHome, { recursive: true }).catch(() => {});
  },
});
