/**
 * Expansion terms beside a question's own: they count at their weight where
 * a question term counts, never in coverage, and none (no options, no
 * terms, or a view given no extraction options) is the ranking unchanged.
 */
import assert from "node:assert/strict";
import { pageRequestSchema, parseWith } from "../../../lib/views/request.ts";
import { view } from "../../../lib/views/view.ts";
import { Document } from "../../../lib/content/document/document.ts";
import {
  extractForQuery,
  rankForQuery,
  type WeightedTerm,
} from "../../../lib/content/question/extract.ts";
import { questionTerms, stem } from "../../../lib/content/question/terms.ts";

const WORDS = ["harbour", "lantern", "meadow", "copper", "violet", "granite", "orchard", "pebble"];

/** Deterministic filler sentences that share no word with the questions. */
function filler(seed: number, sentences: number): string {
  let x = seed * 7919 + 13;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 16) % WORDS.length;
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const w = Array.from({ length: 9 + (next() % 5) }, () => WORDS[next()]);
    out.push(w.join(" ").replace(/^./, (c) => c.toUpperCase()) + ".");
  }
  return out.join(" ");
}

/** A review: filler sections, the price in one and the range in another. */
function review(): Document {
  const parts = ["# The Aurora review"];
  for (let i = 0; i < 12; i++) {
    parts.push(`## Impressions ${i + 1}`, filler(i, 6), filler(i + 100, 5));
    if (i === 3) parts.push("## Price", "The base model costs 38,900 euros.", filler(600, 3));
    if (i === 8) {
      parts.push("## Range", "It managed 412 kilometres on a full battery.", filler(700, 3));
    }
  }
  return new Document({
    url: "https://example.org/review",
    kind: "markdown",
    title: "Review",
    markdown: parts.join("\n\n"),
  });
}

const price: WeightedTerm[] = [{ term: stem("price"), weight: 0.3 }];

Deno.test("expansion: none given is the ranking unchanged", () => {
  const doc = review();
  for (const q of ["what does it cost", "how far on one battery", "expensive"]) {
    const plain = extractForQuery(doc, q, 100);
    assert.deepEqual(extractForQuery(doc, q, 100, {}), plain);
    assert.deepEqual(extractForQuery(doc, q, 100, { expand: () => [] }), plain);
    const { terms } = questionTerms(q);
    const { unitWeight: _a, unitScore: s1, unitTerms: t1, ...expanded } = rankForQuery(
      doc,
      terms,
      false,
      [],
    );
    const { unitWeight: _b, unitScore: s2, unitTerms: t2, ...plainRanking } = rankForQuery(
      doc,
      terms,
    );
    assert.deepEqual(expanded, plainRanking);
    assert.deepEqual([...s1], [...s2]);
    assert.deepEqual([...s1.keys()].map((u) => t1.get(u)), [...s2.keys()].map((u) => t2.get(u)));
  }
});

Deno.test("expansion: a term not on the page is found through its expansion, at its weight", () => {
  const doc = review();
  // "expensive" is not on the page: the whole page, confidence low.
  assert.equal(extractForQuery(doc, "how expensive is it", 100).extracted, false);
  const r = extractForQuery(doc, "how expensive is it", 100, { expand: () => price });
  assert.equal(r.extracted, true);
  assert.ok(r.text.includes("38,900 euros"), r.text);
  // Coverage counts the question's own terms only: the Price heading holds none of them.
  assert.equal(r.confidence, "medium");
  const ranking = rankForQuery(doc, questionTerms("how expensive").terms, false, price);
  assert.equal(ranking.terms, 1);
  assert.deepEqual(ranking.termWeight, [1, 0.3]);
  assert.equal(ranking.ranked[0].coverage, 0);
  assert.equal(ranking.ranked[0].headingCoverage, 0);
  // At weight 1 the same term scores more than at 0.3, and a question term is not added twice.
  const full = rankForQuery(doc, questionTerms("how expensive").terms, false, [{
    term: stem("price"),
    weight: 1,
  }]);
  assert.ok(full.ranked[0].score > ranking.ranked[0].score);
  const twice = rankForQuery(doc, [stem("price")], false, price);
  assert.deepEqual(twice.termWeight, [1]);
});

Deno.test("expansion: the view passes its extraction options on, and none by default", () => {
  const doc = review();
  const seen: string[][] = [];
  const request = parseWith(pageRequestSchema, {
    url: doc.url,
    query: "how expensive is it",
    max_tokens: 100,
  });
  const expanded = view(doc, request, {
    extract: {
      expand: (terms) => {
        seen.push([...terms]);
        return price;
      },
    },
  });
  assert.equal(expanded.extract?.extracted, true);
  assert.deepEqual(seen[0], questionTerms("how expensive is it").terms);
  assert.equal(view(doc, request).extract?.extracted, false);
});
