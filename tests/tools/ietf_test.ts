/**
 * The `ietf` tool and the interception of RFC Editor and Datatracker URLs,
 * end to end: the real server over stdio, driven by the SDK client,
 * replaying `fixtures/http/ietf` (hand-written from the services' published
 * shapes; the real captures under PARKOUR_SHARED_DIR where named).
 */
import assert from "node:assert/strict";
import { ToolError } from "../../lib/errors.ts";
import type { Client } from "@modelcontextprotocol/client";
import { sharedDir } from "../support/shared.ts";
import fc from "fast-check";
import { parseDraftName, parseRfcNumber, parseSubseries } from "../../lib/sources/ietf/mod.ts";
import { parseXml, readSubseries, XmlError } from "../../lib/sources/ietf/bibxml.ts";
import {
  asList,
  callLenient as call,
  connectServer,
  frontmatterText,
} from "../support/mcp_client.ts";

const SHARED = sharedDir() !== undefined;
const NEEDS_SHARED = "needs PARKOUR_SHARED_DIR (the real RFC Editor captures)";

const connect = (args: string[] = [], env: Record<string, string> = {}): Promise<Client> =>
  connectServer({ args, env, name: "ietf-tests" });

const client = await connect();
const clientCode = await connect(["--profile", "code"]);
const clientJson = await connect(["--default-output", "json"]);

Deno.test("ietf rfc: RFC 2119's record with status, DOI, relations, subseries and full_text", async () => {
  const a = await call(client, "ietf", { action: "rfc", query: "RFC 2119" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, "https://www.rfc-editor.org/rfc/rfc2119");
  assert.equal(a.fm.content_type, "record");
  assert.equal(a.fm.api, "IETF (RFC Editor)");
  assert.equal(a.fm.rfc, 2119);
  assert.equal(a.fm.status, "best current practice");
  assert.equal(a.fm.published, "1997-03");
  assert.equal(a.fm.pages, 3);
  assert.equal(a.fm.doi, "10.17487/RFC2119");
  assert.equal(a.fm.full_text, "https://www.rfc-editor.org/rfc/rfc2119.html");
  assert.deepEqual(a.fm.subseries, ["BCP 14"]);
  assert.deepEqual(a.fm.updated_by, ["RFC8174"]);
  assert.equal(a.fm.errata, "https://www.rfc-editor.org/errata/rfc2119");
  assert.ok(asList(a.fm.hint).some((h) => /action=subseries query='BCP 14'/.test(String(h))));
  assert.equal(a.fm.see_also, undefined, "Semantic Scholar is not offered unless enabled");
  assert.ok(a.fm.shelf, "a single RFC is tracked on the shelf");
  assert.equal(a.body[0], "# RFC 2119: Key words for use in RFCs to Indicate Requirement Levels");
  assert.ok(a.body.includes("## Abstract"));
  assert.ok(a.body.some((l) => l.startsWith("In many standards track documents")));
  assert.ok(a.body.includes("- Updated by: [RFC 8174](https://www.rfc-editor.org/rfc/rfc8174)"));
  assert.ok(
    a.body.includes(
      "[HTML](https://www.rfc-editor.org/rfc/rfc2119.html) | [ASCII](https://www.rfc-editor.org/rfc/rfc2119.txt)",
    ),
  );
  // The title is upstream text: inside the fence only.
  assert.doesNotMatch(frontmatterText(a.text), /Key words/);
});

Deno.test("ietf rfc: with Semantic Scholar enabled, the record points to it by DOI", async () => {
  const s2 = await connect([], { S2_ACCEPT_TOS: "1" });
  try {
    const a = await call(s2, "ietf", { action: "rfc", query: "2119" });
    assert.equal(a.isError, false, a.text);
    assert.match(
      String(a.fm.see_also),
      /semantic_scholar with action=paper query=DOI:10\.17487\/RFC2119/,
    );
  } finally {
    await s2.close();
  }
});

Deno.test("ietf rfc: every accepted form names the same RFC", async () => {
  for (
    const query of [
      "2119",
      "rfc2119",
      "RFC-2119",
      "10.17487/RFC2119",
      "https://doi.org/10.17487/rfc2119",
      "https://www.rfc-editor.org/rfc/rfc2119.html",
      "https://www.rfc-editor.org/info/rfc2119",
      "https://datatracker.ietf.org/doc/rfc2119/",
    ]
  ) {
    const a = await call(client, "ietf", { action: "rfc", query });
    assert.equal(a.isError, false, `${query}: ${a.text}`);
    assert.equal(a.fm.rfc, 2119, query);
  }
});

Deno.test("ietf rfc: an RFC older than the status system says so", async () => {
  const a = await call(client, "ietf", { action: "rfc", query: "1" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.status, "unknown");
  assert.equal(a.fm.doi, "10.17487/RFC0001");
  assert.match(String(a.fm.note), /predates the current status system/);
});

Deno.test("ietf rfc: malformed numbers get errors that show the accepted forms", async () => {
  for (const query of ["RFC abc", "0", "-5", "123456789", "", "draft-ietf-quic-transport"]) {
    const a = await call(client, "ietf", { action: "rfc", query });
    assert.equal(a.isError, true, query);
    assert.match(a.text, /^Error: /);
    assert.match(a.text, /'RFC 9110'/, query);
    assert.match(a.text, /10\.17487\/RFC9110/, query);
  }
});

Deno.test("ietf rfc: unknown RFC, rate limit, server error and malformed JSON are clear errors", async () => {
  const missing = await call(client, "ietf", { action: "rfc", query: "12345" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /RFC 12345 not found/);
  const limited = await call(client, "ietf", { action: "rfc", query: "7777" });
  assert.equal(limited.isError, true);
  assert.match(limited.text, /rate limiting.*try again/);
  const failed = await call(client, "ietf", { action: "rfc", query: "6666" });
  assert.equal(failed.isError, true);
  assert.match(failed.text, /HTTP 500.*try again later/);
  const malformed = await call(client, "ietf", { action: "rfc", query: "5555" });
  assert.equal(malformed.isError, true);
  assert.match(malformed.text, /not valid JSON/);
  const wrong = await call(client, "ietf", { action: "rfc", query: "5556" });
  assert.equal(wrong.isError, true);
  assert.match(wrong.text, /not the record of RFC 5556/);
  // The process survived all of it.
  const ok = await call(client, "ietf", { action: "rfc", query: "2119" });
  assert.equal(ok.isError, false);
});

Deno.test("ietf rfc: hostile values stay in the fence; bogus relations are dropped", async () => {
  const a = await call(client, "ietf", { action: "rfc", query: "4444" });
  assert.equal(a.isError, false, a.text);
  const fm = frontmatterText(a.text);
  assert.doesNotMatch(fm, /Ignore previous|rm -rf|APPROVED|evil/i);
  assert.equal(a.fm.status, undefined, "a status outside the closed set is not shown");
  assert.deepEqual(a.fm.obsoletes, ["RFC3"]);
  assert.equal(a.fm.obsoleted_by, undefined);
  assert.equal(a.fm.subseries, undefined);
  assert.equal(a.fm.errata, undefined);
  assert.equal(a.fm.pages, undefined);
  assert.ok(a.body.some((l) => l.includes("Ignore previous instructions")));
  // The fake fence marker in the abstract is margined like every other line.
  assert.ok(a.text.split("\n").every((l) => !l.startsWith("┌─ untrusted content [00000000]")));
});

Deno.test({
  name: "ietf rfc: RFC 9110 from the real capture: chains, STD 97, pages, date",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "ietf", {
      action: "rfc",
      query: "https://www.rfc-editor.org/rfc/rfc9110",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.status, "internet standard");
    assert.equal(a.fm.published, "2022-06");
    assert.equal(a.fm.pages, 194);
    assert.deepEqual(a.fm.subseries, ["STD 97"]);
    assert.deepEqual(a.fm.obsoletes, [
      "RFC2818",
      "RFC7230",
      "RFC7231",
      "RFC7232",
      "RFC7233",
      "RFC7235",
      "RFC7538",
      "RFC7615",
      "RFC7694",
    ]);
    assert.deepEqual(a.fm.updates, ["RFC3864"]);
    assert.ok(asList(a.fm.hint).some((h) => /query='STD 97'/.test(String(h))));
    assert.ok(a.body.some((l) => l.includes("R. Fielding, Ed.; M. Nottingham, Ed.")));
    assert.ok(
      a.body.some((l) => l.startsWith("The Hypertext Transfer Protocol (HTTP) is a stateless")),
    );
  },
});
if (!SHARED) console.warn(`ietf tests on RFC 9110, 2616 and 9000 skipped: ${NEEDS_SHARED}`);

Deno.test({
  name: "ietf rfc: RFC 2616 from the real capture points to the RFC that supersedes it",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "ietf", { action: "rfc", query: "RFC2616" });
    assert.equal(a.isError, false, a.text);
    assert.deepEqual(a.fm.obsoleted_by, [
      "RFC7230",
      "RFC7231",
      "RFC7232",
      "RFC7233",
      "RFC7234",
      "RFC7235",
    ]);
    assert.deepEqual(a.fm.updated_by, ["RFC2817", "RFC5785", "RFC6266", "RFC6585"]);
    assert.equal(a.fm.status, "draft standard");
    assert.ok(asList(a.fm.hint).some((h) => /obsoleted.*action=rfc query=7235/.test(String(h))));
  },
});

Deno.test({
  name: "ietf rfc: RFC 9000 from the real capture has no errata and no relations",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "ietf", { action: "rfc", query: "9000" });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.status, "proposed standard");
    assert.equal(a.fm.errata, undefined);
    assert.equal(a.fm.obsoletes, undefined);
    assert.ok(!a.body.includes("## Relations"));
  },
});

Deno.test("interception: RFC Editor and Datatracker record URLs become IETF records", async () => {
  const page = await call(client, "web_fetch_incisive", {
    url: "https://www.rfc-editor.org/rfc/rfc2119",
  });
  assert.equal(page.isError, false, page.text);
  assert.equal(page.fm.content_type, "record");
  assert.equal(page.fm.api, "IETF (RFC Editor)");
  assert.equal(page.fm.full_text, "https://www.rfc-editor.org/rfc/rfc2119.html");
  assert.ok(page.fm.shelf, "the page tools shelve the RFC they inspect");
  assert.ok(page.body.includes("## Abstract"));

  const outline = await call(client, "web_fetch_sections", {
    url: "https://www.rfc-editor.org/rfc/rfc2119.json",
  });
  assert.equal(outline.isError, false, outline.text);
  assert.equal(outline.fm.api, "IETF (RFC Editor)");
  assert.ok(outline.body.some((l) => /Abstract/.test(l)));
  assert.ok(outline.body.some((l) => /Formats/.test(l)));

  const section = await call(client, "web_fetch_incisive", {
    url: "https://datatracker.ietf.org/doc/rfc2119/",
    section: "Relations",
  });
  assert.equal(section.isError, false, section.text);
  assert.ok(section.body.some((l) => l.includes("RFC 8174")));

  const draft = await call(client, "web_fetch_incisive", {
    url: "https://datatracker.ietf.org/doc/draft-ietf-quic-transport/",
  });
  assert.equal(draft.isError, false, draft.text);
  assert.equal(draft.fm.api, "IETF (Datatracker)");
  assert.equal(draft.fm.state, "RFC");
  assert.equal(draft.fm.shelf, undefined, "drafts have no DOI and are not shelved");
});

Deno.test("interception: the rendered RFC (.html) is left to the generic web path", async () => {
  const a = await call(client, "web_fetch_incisive", {
    url: "https://www.rfc-editor.org/rfc/rfc2119.html",
  });
  // No recorded exchange for the HTML: the generic path asked the web for it.
  assert.equal(a.isError, true);
  assert.match(
    a.text,
    /no recorded exchange for GET https:\/\/www\.rfc-editor\.org\/rfc\/rfc2119\.html/,
  );
});

Deno.test("ietf search: records with totals, paging hint and filters", async () => {
  const a = await call(client, "ietf", { action: "search", query: "HTTP", limit: 3 });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "IETF (Datatracker)");
  assert.equal(a.fm.total_results, 245);
  assert.equal(a.fm.showing, 3);
  assert.equal(a.fm.format, "markdown");
  assert.equal(a.fm.shelf, undefined, "search results are never shelved");
  assert.ok(asList(a.fm.hint).some((h) => /242 more results.*offset=3/.test(String(h))));
  assert.equal(a.body[0], "# RFC search results");
  assert.ok(a.body.includes("| rfc | title | status | pages | url |"));
  assert.ok(
    a.body.includes(
      "| RFC 9110 | HTTP Semantics | Internet Standard | 194 | https://www.rfc-editor.org/rfc/rfc9110 |",
    ),
  );
  assert.doesNotMatch(frontmatterText(a.text), /HTTP Semantics/);

  const filtered = await call(client, "ietf", {
    action: "search",
    query: "HTTP",
    limit: 3,
    status: "std",
    wg: "HTTPbis",
  });
  assert.equal(filtered.isError, false, filtered.text);
  assert.equal(filtered.fm.status, "std");
  assert.equal(filtered.fm.wg, "httpbis");
  assert.equal(filtered.fm.total_results, 2);
  assert.ok(!asList(filtered.fm.hint).some((h) => /more results/.test(String(h))));
});

Deno.test("ietf search: the configured output format shapes the records", async () => {
  const a = await call(clientJson, "ietf", { action: "search", query: "HTTP", limit: 3 });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.format, "json");
  const results = (a.structured?.results ?? []) as Record<string, unknown>[];
  assert.equal(results.length, 3);
  assert.deepEqual(results[0], {
    rfc: "RFC 9110",
    title: "HTTP Semantics",
    status: "Internet Standard",
    pages: 194,
    url: "https://www.rfc-editor.org/rfc/rfc9110",
  });
});

Deno.test("ietf search: no hits, bad filters, upstream failure and garbage", async () => {
  const none = await call(client, "ietf", { action: "search", query: "zzyzx frobnication" });
  assert.equal(none.isError, false, none.text);
  assert.equal(none.fm.total_results, 0);
  assert.match(String(none.fm.note), /no RFC title contains these words/);
  const wg = await call(client, "ietf", { action: "search", query: "HTTP", wg: "http bis!" });
  assert.equal(wg.isError, true);
  assert.match(wg.text, /working group acronym/);
  const status = await call(client, "ietf", { action: "search", query: "HTTP", status: "draft" });
  assert.equal(status.isError, true);
  const limit = await call(client, "ietf", { action: "search", query: "HTTP", limit: 51 });
  assert.equal(limit.isError, true);
  const down = await call(client, "ietf", { action: "search", query: "overload" });
  assert.equal(down.isError, true);
  assert.match(down.text, /Datatracker failed \(HTTP 503\); try again later/);
  const garbled = await call(client, "ietf", { action: "search", query: "garbled" });
  assert.equal(garbled.isError, true);
  assert.match(garbled.text, /not valid JSON/);
});

Deno.test("ietf draft: state, intended status, stream, group, revisions and the text's URL", async () => {
  for (
    const query of [
      "draft-ietf-quic-transport",
      "draft-ietf-quic-transport-34",
      "https://datatracker.ietf.org/doc/draft-ietf-quic-transport/",
    ]
  ) {
    const a = await call(client, "ietf", { action: "draft", query });
    assert.equal(a.isError, false, `${query}: ${a.text}`);
    assert.equal(a.fm.source, "https://datatracker.ietf.org/doc/draft-ietf-quic-transport/");
    assert.equal(a.fm.draft, "draft-ietf-quic-transport");
    assert.equal(a.fm.revision, "34");
    assert.equal(a.fm.state, "RFC");
    assert.equal(a.fm.intended_status, "Proposed Standard");
    assert.equal(a.fm.stream, "IETF");
    assert.equal(a.fm.working_group, "quic");
    assert.equal(
      a.fm.full_text,
      "https://www.ietf.org/archive/id/draft-ietf-quic-transport-34.html",
    );
    assert.ok(a.body.includes("## Abstract"));
    const revisions = a.body.slice(a.body.indexOf("## Recent revisions") + 2);
    assert.match(revisions[0], /^- 34: 2021-01-15$/);
    assert.match(revisions[4], /^- 30: /);
    assert.equal(revisions[5], "- … 30 earlier revisions");
    assert.ok(a.body.some((l) => l.includes("Jana Iyengar (Fastly)")));
  }
});

Deno.test("ietf draft: an older revision asked for is pointed to", async () => {
  const a = await call(client, "ietf", { action: "draft", query: "draft-ietf-quic-transport-20" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.revision, "34");
  assert.match(
    String(a.fm.note),
    /revision 20's text is at https:\/\/www\.ietf\.org\/archive\/id\/draft-ietf-quic-transport-20\.html/,
  );
});

Deno.test("ietf draft: bad names and unknown drafts", async () => {
  for (
    const query of [
      "quic-transport",
      "draft-",
      "draft-IETF quic",
      "https://example.org/doc/draft-x-y/",
    ]
  ) {
    const a = await call(client, "ietf", { action: "draft", query });
    assert.equal(a.isError, true, query);
    assert.match(a.text, /draft-ietf-quic-transport/, "shows the accepted form");
  }
  const missing = await call(client, "ietf", {
    action: "draft",
    query: "draft-nobody-nothing-here",
  });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /draft draft-nobody-nothing-here not found/);
});

Deno.test("ietf subseries: members of BCP 14 and STD 97, zero-padded forms accepted", async () => {
  for (const query of ["BCP 14", "bcp0014", "BCP14", "https://www.rfc-editor.org/info/bcp14"]) {
    const a = await call(client, "ietf", { action: "subseries", query });
    assert.equal(a.isError, false, `${query}: ${a.text}`);
    assert.equal(a.fm.source, "https://www.rfc-editor.org/info/bcp14");
    assert.equal(a.fm.api, "IETF (BibXML)");
    assert.equal(a.fm.subseries, "BCP 14");
    assert.equal(a.fm.member_count, 2);
    assert.deepEqual(a.fm.members, ["RFC2119", "RFC8174"]);
    assert.ok(
      a.body.includes(
        "| RFC 8174 | Ambiguity of Uppercase vs Lowercase in RFC 2119 Key Words | May 2017 | B. Leiba | https://www.rfc-editor.org/rfc/rfc8174 |",
      ),
    );
  }
  const std = await call(client, "ietf", { action: "subseries", query: "STD0097" });
  assert.equal(std.isError, false, std.text);
  assert.deepEqual(std.fm.members, ["RFC9110"]);
  assert.ok(std.body.some((l) => l.includes("R. Fielding; M. Nottingham; J. Reschke")));
});

Deno.test("ietf subseries: bad names, unknown numbers, malformed and entity-laden XML", async () => {
  for (const query of ["XYZ 1", "BCP 0", "BCP", "14"]) {
    const a = await call(client, "ietf", { action: "subseries", query });
    assert.equal(a.isError, true, query);
    assert.match(a.text, /'STD 97', 'BCP 14' or 'FYI 36'/);
  }
  const missing = await call(client, "ietf", { action: "subseries", query: "FYI 99" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /FYI 99 not found/);
  const broken = await call(client, "ietf", { action: "subseries", query: "BCP 98" });
  assert.equal(broken.isError, true);
  assert.match(broken.text, /not readable XML/);
  const lol = await call(client, "ietf", { action: "subseries", query: "BCP 97" });
  assert.equal(lol.isError, true);
  assert.match(lol.text, /internal DTD subset are refused/);
});

Deno.test("ietf: the code profile names the tool IETF; unknown actions are refused", async () => {
  const tools = await clientCode.listTools();
  assert.ok(tools.tools.some((t) => t.name === "IETF"));
  const a = await call(clientCode, "IETF", { action: "rfc", query: "2119" });
  assert.equal(a.isError, false, a.text);
  const bad = await call(client, "ietf", { action: "lookup", query: "2119" });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /rfc.*search.*draft.*subseries/);
});

Deno.test("ietf parsers: any input gives a valid number or an input error, never a crash", () => {
  const inputs = fc.oneof(
    fc.string(),
    fc.stringMatching(/^(RFC|rfc|BCP|std|draft-)?[ -]?-?[0-9a-z-]{0,12}$/),
    fc.integer().map(String),
  );
  fc.assert(fc.property(inputs, (input) => {
    for (const parse of [parseRfcNumber, parseDraftName, parseSubseries]) {
      try {
        const out = parse(input);
        if (typeof out === "number") {
          assert.ok(Number.isSafeInteger(out) && out >= 1 && out <= 99_999);
        }
      } catch (error) {
        assert.ok(error instanceof ToolError, String(error));
      }
    }
  }));
  assert.equal(parseRfcNumber(" RFC 9110 "), 9110);
  assert.deepEqual(parseDraftName("draft-ietf-quic-transport-34"), {
    name: "draft-ietf-quic-transport",
    rev: "34",
  });
  assert.deepEqual(parseSubseries("bcp0014"), { series: "BCP", number: 14 });
});

Deno.test("ietf BibXML reader: arbitrary text parses or fails with XmlError; entities stay unexpanded", () => {
  fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => {
    try {
      parseXml(text);
    } catch (error) {
      assert.ok(error instanceof XmlError, String(error));
    }
  }));
  const root = parseXml('<a x="1 &amp; 2"><b>&lt;&#65;&#x42;&unknown;</b><c/></a>');
  assert.equal(root.attrs.x, "1 & 2");
  assert.deepEqual(root.children[0], { name: "b", attrs: {}, children: ["<AB&unknown;"] });
  assert.throws(() => parseXml("<a><b></a></b>"), XmlError);
  assert.throws(() => parseXml('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'), XmlError);
  assert.deepEqual(
    readSubseries(
      '<referencegroup><reference anchor="RFC1"><front><title>T</title></front></reference>' +
        '<reference anchor="RFCx"><front><title>no number</title></front></reference></referencegroup>',
    ).map((m) => m.rfc),
    [1],
  );
});

const HAS_SHELF_TOOL = (await client.listTools()).tools.some((t) => t.name === "research_shelf");

Deno.test({
  name: "ietf: an RFC read singly is on the shelf as 10.17487/rfcNNNN; search results are not",
  ignore: !HAS_SHELF_TOOL,
  async fn() {
    await call(client, "ietf", { action: "search", query: "HTTP", limit: 3 });
    const read = await call(client, "ietf", { action: "rfc", query: "RFC 2119" });
    assert.equal(read.isError, false, read.text);
    const exported = await call(client, "research_shelf", { action: "export", format: "json" });
    assert.equal(exported.isError, false, exported.text);
    const shelf = JSON.parse(exported.body.join("\n"));
    const rfc = shelf.active["10.17487/rfc2119"];
    assert.ok(rfc, "RFC 2119 is on the shelf under its lower-cased, zero-padded DOI");
    assert.equal(rfc.kind, "rfc");
    assert.equal(rfc.rfc_number, 2119);
    assert.equal(rfc.venue, "IETF");
    assert.equal(rfc.year, 1997);
    assert.equal(rfc.source_tool, "ietf");
    assert.deepEqual(rfc.authors, ["Bradner, S."]);
    assert.equal(
      shelf.active["10.17487/rfc0001"]?.year,
      1969,
      "RFC 1 read earlier is padded to 4 digits",
    );
    for (const listed of ["10.17487/rfc9111", "10.17487/rfc6585"]) {
      assert.equal(shelf.active[listed], undefined, `${listed} was only in search results`);
    }
  },
});
if (!HAS_SHELF_TOOL) {
  console.warn("ietf shelf test skipped: the research_shelf tool is not registered");
}

Deno.test({
  name: "ietf: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await clientCode.close();
    await clientJson.close();
  },
});
