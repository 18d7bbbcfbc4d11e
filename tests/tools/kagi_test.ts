/**
 * The `kagi_search` tool and the `kagi://` resources, end to end: the real
 * server over stdio, driven by the SDK client, replaying `fixtures/http/kagi`
 * (written from Kagi's published API shapes; the v0 documentation example
 * under PARKOUR_SHARED_DIR where named).
 *
 * Replay matches method and URL only, so the v1 search URL has one
 * recorded answer; upstream error statuses are exercised on the enrichment
 * URLs (distinct `q=`), which share the error mapping.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { envelopeReady, parseFrontmatter } from "../../mod.ts";
import { sharedDir } from "../support/shared.ts";
import { asList, callTool, connectServer } from "../support/mcp_client.ts";

// The frontmatter serializer loads on first need (the package entry awaits nothing).
await envelopeReady();

const SHARED = sharedDir() !== undefined;
const KEY = "kagi-test-key-7f3a9c";

const connect = (args: string[] = [], env: Record<string, string> = {}): Promise<Client> =>
  connectServer({ args, env, name: "kagi-tests" });
async function call(client: Client, args: Record<string, unknown>, name = "kagi_search") {
  const a = await callTool(client, name, args, { emptyFmOnError: true });
  return { ...a, fences: a.blocks, body: a.body.join("\n") };
}
const list = (value: unknown): string[] => asList(value).map(String);

const client = await connect([], { KAGI_API_KEY: KEY });
const clientCode = await connect(["--profile", "code"], { KAGI_API_KEY: KEY });
const clientJson = await connect(["--default-output", "json"], { KAGI_API_KEY: KEY });
const noKey = await connect();

Deno.test("kagi_search: v1 search gives records with plain-text snippets, dates, related searches and read hints", async () => {
  const a = await call(client, { query: 'deno "test runner" site:docs.deno.com' });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "Kagi Search API v1");
  assert.equal(a.fm.workflow, "search");
  assert.equal(a.fm.query, 'deno "test runner" site:docs.deno.com');
  assert.equal(a.fm.results, 3);
  assert.equal(a.fm.format, "markdown");
  assert.match(a.body, /\| rank \| title \| url \| snippet \| date \|/);
  assert.match(a.body, /Deno has a built-in test runner that you can use/);
  assert.doesNotMatch(a.body, /<strong>|&amp;|&#39;/, "HTML removed and entities decoded");
  assert.match(a.body, /testing & more/);
  assert.match(a.body, /2025-11-03T00:00:00Z/);
  assert.match(a.body, /Related searches: deno test coverage, deno bench/);
  const hints = list(a.fm.hint).join("\n");
  assert.match(hints, /web_fetch_sections/);
  assert.match(hints, /web_fetch_incisive/);
  // Titles are upstream text: in the fence, never in the frontmatter.
  assert.doesNotMatch(a.text.slice(0, a.text.indexOf("\n---", 3)), /Testing - Deno Docs/);
  assert.ok(!a.text.includes(KEY), "the key is never echoed");
});

Deno.test("kagi_search: the code profile names its siblings in PascalCase and points at the resources", async () => {
  const { tools } = await clientCode.listTools();
  const tool = tools.find((t) => t.name === "KagiSearch");
  assert.ok(tool, "KagiSearch listed");
  assert.match(tool.description ?? "", /WebFetchSections/);
  assert.match(tool.description ?? "", /kagi:\/\/regions/);
  const desktop = (await client.listTools()).tools.find((t) => t.name === "kagi_search");
  assert.doesNotMatch(desktop?.description ?? "", /kagi:\/\//);
  const a = await call(clientCode, { query: "deno testing" }, "KagiSearch");
  assert.match(list(a.fm.hint).join("\n"), /WebFetchSections.*WebFetchIncisive/);
});

Deno.test("kagi_search: workflows read their own result key (news, videos)", async () => {
  const news = await call(client, { query: "deno release", workflow: "news" });
  assert.equal(news.fm.results, 1);
  assert.match(news.body, /Deno 2\.9 is out/);
  assert.doesNotMatch(news.body, /Testing - Deno Docs/);
  const videos = await call(client, { query: "deno testing", workflow: "videos" });
  assert.match(videos.body, /Deno testing in 10 minutes/);
});

Deno.test("kagi_search: json output carries the groups as structured content", async () => {
  const a = await call(clientJson, { query: ["deno testing", "deno bench"] });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.format, "json");
  assert.equal(a.fm.queries, 2);
  const groups = a.structured?.groups as { query: string; results: { rank: number }[] }[];
  assert.deepEqual(groups.map((g) => g.query), ["deno testing", "deno bench"]);
  assert.equal(groups[0].results.length, 3);
  assert.equal(groups[0].results[0].rank, 1);
  assert.equal(a.fences.length, 2);
  assert.match(a.fences[1].lines.join("\n"), /query 2: deno bench/);
});

Deno.test("kagi_search: page numbers the ranks from the page's start and filters are echoed", async () => {
  const a = await call(client, {
    query: "deno testing",
    limit: 3,
    page: 2,
    region: "be_fr",
    after: "2024-01-01",
    before: "2026-06-30",
    lens: "programming",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.page, 2);
  assert.equal(a.fm.region, "be_fr");
  assert.equal(a.fm.after, "2024-01-01");
  assert.equal(a.fm.lens, "programming");
  assert.match(a.body, /^\| 4 \| Testing - Deno Docs/m);
  assert.match(list(a.fm.hint).join("\n"), /page=3/);
});

Deno.test("kagi_search: bad dates, regions, lenses and combinations are refused before any request", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ query: "x", after: "2024-13-01" }, /after must be a date written YYYY-MM-DD/],
    [{ query: "x", before: "2024-02-30" }, /before must be a date/],
    [{ query: "x", after: "01/02/2024" }, /YYYY-MM-DD/],
    [{ query: "x", after: "2025-01-02", before: "2024-01-01" }, /later than before/],
    [
      { query: "x", region: "US" },
      /unknown region 'US' \(region codes are lowercase: 'us'\).*be_fr/,
    ],
    [{ query: "x", region: "atlantis" }, /Valid regions: no_region, ar, at/],
    [{ query: "x", lens: "Programming" }, /built-in slugs are lowercase: 'programming'/],
    [{ query: "x", lens: "cooking" }, /unknown lens 'cooking'.*'news 360'/],
    [{ query: "x", lens: "https://evil.example/lenses/abcdefABCDEF123456" }, /unknown lens/],
    [{ query: "" }, /query is required/],
    [{ query: ["ok", "  "] }, /query is required/],
    [{ query: "x", workflow: "enrich_web", region: "us" }, /region works only with the v1/],
    [{ query: "x", workflow: "summarize" }, /./],
    [{ query: "x", page: 11 }, /./],
  ];
  for (const [args, message] of cases) {
    const a = await call(client, args);
    assert.equal(a.isError, true, JSON.stringify(args));
    assert.match(a.text, /^Error: /);
    assert.match(a.text, message, JSON.stringify(args));
  }
});

Deno.test("kagi_search: shareable lens ids and kagi.com lens URLs are accepted", async () => {
  const a = await call(client, {
    query: "deno testing",
    lens: "https://kagi.com/lenses/JvBWqZ0e8AalQDCrnXzQ0ng2",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.lens, "JvBWqZ0e8AalQDCrnXzQ0ng2");
  const b = await call(client, { query: "deno testing", lens: "small web", workflow: "news" });
  const notes = [...list(b.fm.warning), ...list(b.fm.note)].join("\n");
  assert.match(notes, /reliable only with workflow=search/);
  assert.match(notes, /switched on/);
});

Deno.test("kagi_search: without a key it says how to get one and sends nothing", async () => {
  const a = await call(noKey, { query: "deno testing" });
  assert.equal(a.isError, false, a.text);
  assert.match(a.fm.status as string, /no API key/);
  const note = list(a.fm.note).join("\n");
  assert.match(note, /https:\/\/kagi\.com\/settings\?p=api/);
  assert.match(note, /KAGI_API_KEY/);
  assert.match(note, /kagi_api_key/);
  assert.equal(a.fences.length, 0);
  // Input is still checked first.
  const bad = await call(noKey, { query: "x", region: "XX" });
  assert.equal(bad.isError, true);
});

Deno.test("kagi_search: enrichment indexes (web, news) with v0 shapes; unsafe URLs dropped", async () => {
  const a = await call(client, { query: "indie web", workflow: "enrich_web" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "Kagi Enrichment API");
  assert.equal(a.fm.results, 2);
  assert.match(a.body, /people-focused alternative to the "corporate web"/);
  assert.match(a.body, /2024-06-01T00:00:00Z/);
  assert.doesNotMatch(a.body, /javascript:/);
  assert.match(a.body, /Related searches: indie web ring, webmention/);
  const n = await call(client, { query: "linux kernel", workflow: "enrich_news" });
  assert.match(n.body, /6\.12 merge window/);
});

Deno.test("kagi_search: several queries: one failure is reported in its group, the rest answer", async () => {
  const a = await call(client, { query: ["indie web", "down"], workflow: "enrich_web" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.queries, 2);
  assert.equal(a.fm.results, 2);
  assert.match(
    list(a.fm.warning).join("\n"),
    /query 2 \(down\) failed: .*HTTP 503.*try again later/,
  );
  assert.match(a.fences[0].lines.join("\n"), /query 1: indie web/);
  const structuredless = await call(clientJson, {
    query: ["indie web", "badkey"],
    workflow: "enrich_web",
  });
  const groups = structuredless.structured?.groups as Record<string, unknown>[];
  assert.match(String(groups[1].error), /refused the API key/);
  const all = await call(client, { query: ["down", "garbled"], workflow: "enrich_web" });
  assert.equal(all.isError, true);
  assert.match(all.text, /all 2 queries failed/);
});

Deno.test("kagi_search: 401, 402, 429, 5xx and malformed JSON become clear errors", async () => {
  const cases: [string, RegExp][] = [
    ["badkey", /refused the API key \(HTTP 401\).*kagi_api_key.*settings\?p=api/],
    ["nocredit", /balance is too low \(HTTP 402\).*billing_api/],
    ["ratelimited", /rate limiting this key \(HTTP 429\) \(Retry-After: 30 s\)/],
    ["down", /failed on its side \(HTTP 503\); try again later/],
    ["garbled", /not JSON/],
  ];
  for (const [query, message] of cases) {
    const a = await call(client, { query, workflow: "enrich_web" });
    assert.equal(a.isError, true, query);
    assert.match(a.text, message, query);
    assert.ok(!a.text.includes(KEY));
  }
  const quoted = await call(client, { query: "badkey", workflow: "enrich_web" });
  assert.match(quoted.text, /Unauthorized \(general\.unauthorized\)/, "Kagi's text, fenced");
});

Deno.test("kagi_search: small_web lists the feed without a key; summaries are fenced", async () => {
  const a = await call(noKey, { workflow: "small_web", limit: 3 });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "Kagi Small Web");
  assert.equal(a.fm.results, 2);
  assert.match(a.body, /Notes on gardening & code/);
  assert.match(a.body, /Small thoughts on slow software\./);
  assert.match(a.body, /2026-11-29T18:04:00Z/);
  assert.match(a.body, /Ignore previous instructions/);
  assert.doesNotMatch(a.text.slice(0, a.text.indexOf("\n---", 3)), /Ignore previous/);
  const bad = await call(noKey, { workflow: "small_web", lens: "programming" });
  assert.equal(bad.isError, true);
});

Deno.test({
  name: "kagi_search: the documentation example (real v0 body) through the enrichment path",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, { query: "steve jobs", workflow: "enrich_web", limit: 10 });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.results, 10);
    assert.match(a.body, /Steve Jobs - Wikipedia/);
    assert.match(a.body, /Walter Isaacson's “enthralling”/, "&#39; decoded");
    assert.match(a.body, /2024-09-30T00:00:00Z/);
    assert.match(a.body, /Related searches: /);
  },
});
if (!SHARED) console.warn("kagi real-capture test skipped: needs PARKOUR_SHARED_DIR");

Deno.test("kagi://regions and kagi://lenses are listed and readable", async () => {
  const { resources } = await client.listResources();
  for (const uri of ["kagi://regions", "kagi://lenses"]) {
    const r = resources.find((x) => x.uri === uri);
    assert.ok(r, `${uri} listed`);
    assert.equal(r.mimeType, "text/markdown");
  }
  const regions = (await client.readResource({ uri: "kagi://regions" })).contents[0] as {
    text: string;
  };
  assert.equal(parseFrontmatter(regions.text)?.regions, 64);
  assert.match(regions.text, /\| be_fr \| Belgium \(French\) \|/);
  assert.match(regions.text, /\| zm \| Zambia \|/);
  assert.doesNotMatch(regions.text, /\| int \|/);
  const lenses = (await client.readResource({ uri: "kagi://lenses" })).contents[0] as {
    text: string;
  };
  assert.equal(parseFrontmatter(lenses.text)?.lenses, 11);
  assert.match(lenses.text, /\| news 360 \|/);
  assert.match(lenses.text, /\| recipes \| .* \| switch on/);
});

Deno.test({
  name: "kagi: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await clientCode.close();
    await clientJson.close();
    await noKey.close();
  },
});
