/**
 * The DOI source end to end: the real server over stdio, driven by the SDK
 * client, replaying fixtures/http/doi (no network). Tests that need the
 * shared real captures are ignored (visibly) without PARKOUR_SHARED_DIR.
 * The pure helpers of lib/sources/doi/crossref.ts and doi/mod.ts are tested last.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { sharedDir } from "../support/shared.ts";
import {
  crossrefEnrichment,
  dataciteEnrichment,
  parseDoi,
  partialDate,
  printable,
  updatesOf,
} from "../../lib/sources/doi/crossref.ts";
import { delegateOf, isDoiUrl, plainAbstract, workKind } from "../../lib/sources/doi/mod.ts";
import { asList, callTool, connectServer } from "../support/mcp_client.ts";

const SHARED = sharedDir() !== undefined;
const NEEDS_SHARED = "(needs PARKOUR_SHARED_DIR: real captures)";

const connect = (profile = "desktop"): Promise<Client> =>
  connectServer({ args: ["--profile", profile], name: "doi-tests" });
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const a = await callTool(client, name, args, { emptyFmOnError: true });
  return { ...a, body: a.body.join("\n") };
}
const list = (value: unknown): string[] => value === null ? [] : asList(value).map(String);

const client = await connect();

Deno.test("doi: a retracted paper gets an alert, a correction note, a banner in the fence and validated fields only", async () => {
  const a = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.5555/retracted.1",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "DOI");
  assert.equal(a.fm.source, "https://doi.org/10.5555/retracted.1");
  assert.equal(a.fm.content_type, "record");
  assert.equal(a.fm.doi, "10.5555/retracted.1");
  assert.equal(a.fm.type, "article-journal");
  // The latest retraction wins over the earlier concern; the malformed notice DOI and the
  // impossible date are dropped.
  assert.deepEqual(list(a.fm.alert), [
    "retracted 2020-06-05 — notice: 10.5555/retraction.2 (retraction-watch)",
  ]);
  assert.ok(
    list(a.fm.note).includes("correction published 2019-01-02 — notice: 10.5555/erratum.3"),
    String(a.fm.note),
  );
  assert.deepEqual(list(a.fm.relation), ["has_preprint: 10.1101/2019.01.01.123456"]);
  // Semantic Scholar is off (no licence accepted): nothing points at it.
  assert.ok(!list(a.fm.see_also).some((s) => /semantic.?scholar/i.test(s)), String(a.fm.see_also));
  assert.ok(a.fm.shelf, "the work is shelved");
  // Nothing from the record's free text reaches the frontmatter.
  const head = a.text.slice(0, a.text.indexOf("\n---", 4));
  assert.doesNotMatch(head, /did not hold up|ignore previous|javascript:|Example Press/);
  // Inside the fence: banner with the capped, flattened label, then the record.
  assert.match(
    a.body,
    /^> \*\*\[RETRACTED\]\*\* This paper has been retracted on 2020-06-05 — notice: https:\/\/doi\.org\/10\.5555\/retraction\.2 \(source: retraction-watch\)\./m,
  );
  const label = a.body.split("\n").find((l) => l.startsWith("> _Retraction"))!;
  assert.ok(label.length <= 126, "label capped at 120 characters");
  assert.ok(![...label].some((c) => c.charCodeAt(0) < 0x20), "no control characters");
  assert.match(a.body, /\*\*\[CORRECTED\]\*\* This paper has been corrected on 2019-01-02/);
  assert.match(
    a.body,
    /\*\*Authors:\*\* Example, Ada \[ORCID\]\(https:\/\/orcid\.org\/0000-0002-1825-0097\); Sample, Bo/,
  );
  assert.match(a.body, /\*\*Journal:\*\* Journal of Examples/);
  assert.match(a.body, /\*\*License:\*\* https:\/\/creativecommons\.org\/licenses\/by\/4\.0\/$/m);
  assert.match(a.body, /## Abstract\n\nWe report remarkable results & more\./);
  assert.match(a.body, /## Citation\n\nExample, A\., & Sample, B\. \(2019\)\. A study/);

  // Sections of the record work like any page's.
  const cite = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.5555/retracted.1",
    section: "Citation",
  });
  assert.equal(cite.fm.cached, true);
  assert.match(cite.body, /Journal of Examples/);
});

Deno.test("doi: dx.doi.org URLs and the doi: form in the path are read the same way", async () => {
  const a = await call(client, "web_fetch_sections", {
    url: "https://dx.doi.org/doi:10.5555/retracted.1",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "DOI");
  assert.equal(a.fm.final_url, "https://doi.org/10.5555/retracted.1");
  assert.ok(list(a.fm.alert).length === 1);
});

Deno.test("doi: a notice DOI says which work it retracts", async () => {
  const a = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.5555/retraction.2",
  });
  assert.equal(a.isError, false, a.text);
  assert.ok(
    list(a.fm.note).some((n) =>
      n.startsWith("this DOI is a retraction notice for 10.5555/retracted.1")
    ),
    String(a.fm.note),
  );
  assert.equal(a.fm.alert, undefined);
});

Deno.test("doi: malformed DOIs get the accepted form without any request", async () => {
  for (
    const bad of ["https://doi.org/10.12/abc", "https://doi.org/10.1038", "https://doi.org/doi:"]
  ) {
    const a = await call(client, "web_fetch_incisive", { url: bad });
    assert.equal(a.isError, true, bad);
    assert.match(a.text, /^Error: '.*' is not a valid DOI\. A DOI is 10\.<4-9 digit registrant>/);
    assert.match(a.text, /https:\/\/doi\.org\/10\.1038\/nature14539/);
  }
});

Deno.test("doi: unknown DOI, rate limit, server error, malformed JSON and a foreign redirect are clear errors", async () => {
  const missing = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.5555/missing",
  });
  assert.equal(missing.isError, true);
  assert.match(
    missing.text,
    /^Error: DOI 10\.5555\/missing was not found: .*HTTP 404.*Check the DOI/,
  );

  const busy = await call(client, "web_fetch_incisive", { url: "https://doi.org/10.5555/busy" });
  assert.equal(busy.isError, true);
  assert.match(
    busy.text,
    /^Error: Could not resolve DOI 10\.5555\/busy: .*rate limiting.*try again/,
  );

  const broken = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.5555/broken",
  });
  assert.equal(broken.isError, true);
  assert.match(broken.text, /^Error: Could not resolve DOI 10\.5555\/broken: .*HTTP 500.*later/);

  const garbled = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.5555/garbled",
  });
  assert.equal(garbled.isError, true);
  assert.match(garbled.text, /^Error: Could not resolve DOI 10\.5555\/garbled: .*malformed JSON/);

  const elsewhere = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.5555/elsewhere",
  });
  assert.equal(elsewhere.isError, true);
  assert.match(
    elsewhere.text,
    /redirected outside doi\.org, data\.crosscite\.org and api\.crossref\.org/,
  );
  assert.doesNotMatch(elsewhere.text, /Injected metadata/);

  const unknownPrefix = await call(client, "web_fetch_incisive", {
    url: "https://doi.org/10.99999/none",
  });
  assert.equal(unknownPrefix.isError, true);
  assert.match(unknownPrefix.text, /^Error: DOI 10\.99999\/none was not found/);
});

Deno.test({
  name: `doi: Nature 10.1038/nature14539 with the real CrossRef record ${NEEDS_SHARED}`,
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "web_fetch_incisive", {
      url: "https://doi.org/10.1038/nature14539",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.api, "DOI");
    assert.equal(a.fm.alert, undefined, "not retracted");
    assert.equal(a.fm.warning, undefined, "enrichment worked");
    assert.match(a.text, /^┌─ untrusted content \[[0-9a-f]{8}\]\n│\n│ # Deep learning$/m);
    assert.match(a.body, /\*\*Authors:\*\* LeCun, Yann; Bengio, Yoshua; Hinton, Geoffrey/);
    assert.match(a.body, /\*\*Published:\*\* 2015-05-27 {2}\*\*Publisher:\*\* Springer/);
    assert.match(a.body, /\*\*License:\*\* https:\/\/www\.springer\.com\/tdm$/m);
    assert.match(a.body, /\*\*Cited by \(CrossRef\):\*\* 74818/);
    assert.match(
      a.body,
      /LeCun, Y\., Bengio, Y\., & Hinton, G\. \(2015\)\. Deep learning\. Nature/,
    );
    // has-review is not a same-work relation, so no relation line.
    assert.equal(a.fm.relation, undefined);
  },
});

Deno.test({
  name:
    `doi: CSL-JSON through the doi.org redirect to api.crossref.org, CrossRef down ${NEEDS_SHARED}`,
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "web_fetch_incisive", {
      url: "https://doi.org/10.1126/science.169.3946.635",
    });
    assert.equal(a.isError, false, a.text);
    assert.match(
      a.text,
      /^┌─ untrusted content \[[0-9a-f]{8}\]\n│\n│ # The Structure of Ordinary Water$/m,
    );
    assert.match(a.body, /\*\*Journal:\*\* Science/);
    assert.match(a.body, /## Abstract\n\nThe train of thought pursued in this article/);
    assert.doesNotMatch(a.body, /<jats:p>/);
    assert.match(
      String(a.fm.warning),
      /CrossRef\/DataCite metadata was unavailable \(upstream error\)/,
    );
  },
});

Deno.test({
  name:
    `doi: DataCite datasets: ORCID, SPDX licence, resource type, related identifiers ${NEEDS_SHARED}`,
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "web_fetch_incisive", {
      url: "https://doi.org/10.6084/m9.figshare.1449060",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.type, "Dataset");
    assert.match(a.body, /Dworkin, Ian \[ORCID\]\(https:\/\/orcid\.org\/0000-0002-2874-287X\)/);
    assert.match(
      a.body,
      /\*\*License:\*\* \[cc-by-4\.0\]\(https:\/\/creativecommons\.org\/licenses\/by\/4\.0\/legalcode\)/,
    );
    assert.match(a.body, /\[Data set\]/);

    const dryad = await call(client, "web_fetch_incisive", {
      url: "https://doi.org/10.5061/dryad.8515",
    });
    assert.equal(dryad.isError, false, dryad.text);
    assert.deepEqual(list(dryad.fm.relation), ["is_cited_by: 10.1371/journal.ppat.1000446"]);
    assert.match(dryad.body, /\*\*License:\*\* \[cc0-1\.0\]/);
    assert.ok(list(dryad.fm.warning).every((w) => !/only the formatted citation/.test(w)));
  },
});

Deno.test({
  name: `doi: an arXiv DOI is handed to the arXiv source ${NEEDS_SHARED}`,
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "web_fetch_incisive", {
      url: "https://doi.org/10.48550/arXiv.1706.03762",
    });
    // Served by the arXiv source (its own fixtures), not by content negotiation.
    assert.notEqual(a.fm.api, "DOI", a.text.slice(0, 600));
    assert.doesNotMatch(a.text, /no recorded exchange for GET https:\/\/doi\.org\/10\.48550/);
  },
});

// ---------------------------------------------------------------------------
// Pure helpers.

Deno.test("doi helpers: DOI forms, URL detection, delegation and work kinds", () => {
  assert.equal(parseDoi("10.1038/nature14539"), "10.1038/nature14539");
  assert.equal(parseDoi(" doi:10.1038/nature14539 "), "10.1038/nature14539");
  assert.equal(parseDoi("https://dx.doi.org/10.1000%2F182"), "10.1000/182");
  assert.equal(parseDoi("10.123/abc"), undefined, "registrant under 4 digits");
  assert.equal(parseDoi("10.1234/"), undefined);
  assert.equal(parseDoi("10.1234/a b"), undefined);
  assert.equal(isDoiUrl(new URL("https://doi.org/10.1038/x")), true);
  assert.equal(isDoiUrl(new URL("http://dx.doi.org/doi:10.1038/x")), true);
  assert.equal(isDoiUrl(new URL("https://doi.org/")), false);
  assert.equal(isDoiUrl(new URL("https://www.doi.org/the-identifier/what-is-a-doi/")), false);
  assert.equal(isDoiUrl(new URL("https://example.org/10.1038/x")), false);
  assert.deepEqual(delegateOf("10.48550/arXiv.1706.03762"), {
    source: "arxiv",
    url: new URL("https://arxiv.org/abs/1706.03762"),
  });
  assert.deepEqual(delegateOf("10.17487/RFC9110"), {
    source: "ietf",
    url: new URL("https://www.rfc-editor.org/rfc/rfc9110"),
  });
  assert.equal(delegateOf("10.17487/rfc0791")?.url.href, "https://www.rfc-editor.org/rfc/rfc791");
  assert.equal(delegateOf("10.48550/arXiv.not-an-id"), undefined);
  assert.equal(delegateOf("10.1038/nature14539"), undefined);
  assert.equal(workKind("article-journal"), "article");
  assert.equal(workKind("paper-conference"), "inproceedings");
  assert.equal(workKind("posted-content"), "preprint");
  assert.equal(workKind("dataset"), "dataset");
  assert.equal(workKind("weird"), "misc");
});

Deno.test("crossref helpers: dates, labels and update records are validated", () => {
  assert.equal(partialDate({ "date-parts": [[2020, 6, 5]] }), "2020-06-05");
  assert.equal(partialDate({ "date-parts": [[2020, 2, 30]] }), "2020-02");
  assert.equal(partialDate({ "date-parts": [[2020]] }), "2020");
  assert.equal(partialDate({ "date-parts": [["x"]] }), undefined);
  assert.equal(partialDate({ "date-time": "2021-01-02T00:00:00Z" }), "2021-01-02");
  assert.equal(printable("a\u0000b\nc\u202ed"), "a b c d");
  assert.equal(Array.from(printable("y".repeat(500))!).length, 120);

  const u = updatesOf([
    { type: "retraction", DOI: "10.1/short", updated: { "date-parts": [[2020, 1, 1]] } },
    { type: "withdrawal", DOI: "10.5555/w.1", updated: { "date-parts": [[2018, 1, 1]] } },
    {
      type: "removal",
      DOI: "10.5555/r.2",
      source: "publisher",
      updated: { "date-parts": [[2019]] },
    },
    {
      type: "expression_of_concern",
      DOI: "10.5555/c.3",
      updated: { "date-parts": [[2021, 1, 1]] },
    },
    { type: "erratum", DOI: "10.5555/e.4", source: "nonsense" },
    "not an object",
    null,
  ]);
  assert.deepEqual(u.retraction, {
    kind: "retraction",
    noticeDoi: "10.5555/r.2",
    date: "2019",
    source: "publisher",
    label: undefined,
  });
  assert.equal(u.correction?.noticeDoi, "10.5555/e.4");
  assert.equal(u.correction?.source, "unknown");
  const concern = updatesOf([{ type: "expression_of_concern", DOI: "10.5555/c.3" }]);
  assert.equal(concern.retraction?.kind, "expression_of_concern");
  assert.deepEqual(updatesOf("garbage"), {});

  const cr = crossrefEnrichment({
    type: "journal-article",
    "is-referenced-by-count": 3,
    author: [{ given: "A", family: "B", ORCID: "http://orcid.org/0000-0001-2345-678X" }, {
      family: "C",
      ORCID: "javascript:1",
    }],
    license: [{ URL: "javascript:alert(1)", "content-version": "vor" }],
    relation: { "is-version-of": [{ "id-type": "doi", id: "10.5555/V.1" }] },
  });
  assert.deepEqual(cr.orcids, { "B, A": "0000-0001-2345-678X" });
  assert.equal(cr.license, undefined, "non-http licence URLs are dropped");
  assert.deepEqual(cr.relations, { is_version_of: ["10.5555/v.1"] });
  assert.equal(cr.citedBy, 3);

  const dc = dataciteEnrichment({
    rightsList: [{ rights: "x", rightsUri: "https://example.org/l" }],
    relatedIdentifiers: Array.from({ length: 15 }, (_, i) => ({
      relationType: "References",
      relatedIdentifier: `10.5555/ref.${i}`,
      relatedIdentifierType: "DOI",
    })),
    types: { resourceTypeGeneral: "Software" },
  });
  assert.equal(dc.license, "https://example.org/l");
  assert.equal(dc.relations.references.length, 10, "at most 10 related identifiers");
  assert.equal(dc.type, "Software");
  assert.equal(
    plainAbstract("<jats:p>A &lt;b&gt; &#x3b1;</jats:p><jats:p>Two</jats:p>"),
    "A <b> α\n\nTwo",
  );
});

Deno.test({
  name: "doi: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
  },
});
