/**
 * Query-scoped extraction over Documents: the contract (small pages whole,
 * no match whole and `low`, budgets, confidence), plain-word questions
 * (stop words, inflections, heading context), atomic blocks, oversized
 * sections cut to their best parts, and a property test that the result
 * is made only of the page's own text and honours the budget.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Document } from "../../../lib/content/document/document.ts";
import {
  ELISION,
  extractForQuery,
  hasQueryIndex,
  QUERY_DEFAULT_TOKENS,
} from "../../../lib/content/question/extract.ts";
import { questionTerms, stem } from "../../../lib/content/question/terms.ts";
import { estimateTokens } from "../../../lib/content/tokens/count.ts";

/** Deterministic filler prose: sentences from a vocabulary that shares no word with the questions. */
function filler(seed: number, sentences: number): string {
  const words = [
    "harbour",
    "lantern",
    "meadow",
    "copper",
    "violet",
    "granite",
    "orchard",
    "pebble",
    "thistle",
    "saddle",
    "willow",
    "ember",
    "marble",
    "quiver",
    "juniper",
    "falcon",
  ];
  let x = seed * 7919 + 13;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 16) % words.length;
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const n = 8 + (next() % 6);
    const w = Array.from({ length: n }, () => words[next()]);
    out.push(w.join(" ").replace(/^./, (c) => c.toUpperCase()) + ".");
  }
  return out.join(" ");
}

function page(sections: string[], title = "Test page"): Document {
  return new Document({
    url: "https://example.org/page",
    kind: "markdown",
    title,
    markdown: sections.join("\n\n"),
  });
}

/** A review of a car: 12 filler sections, the facts in a few of them. */
function carReview(): Document {
  const parts = ["# The Aurora EV review"];
  for (let i = 0; i < 12; i++) {
    parts.push(`## Impressions ${i + 1}`, filler(i, 6), filler(i + 100, 5));
    if (i === 7) {
      parts.push(
        "## Battery and charging",
        filler(500, 4),
        "On a full battery the Aurora managed 412 kilometres in our mixed test loop.",
        "Charging from 10 to 80 percent takes 31 minutes on a fast charger.",
        filler(501, 4),
      );
    }
    if (i === 3) {
      parts.push(
        "## Price",
        "The base model costs 38,900 euros before incentives.",
        filler(600, 3),
      );
    }
  }
  return page(parts);
}

Deno.test("query: a short page comes back whole, without a confidence", () => {
  const doc = page(["# Short", "## One", "Some words about widgets.", "## Two", "More words."]);
  const r = extractForQuery(doc, "what about widgets");
  assert.equal(r.extracted, false);
  assert.equal(r.confidence, null);
  assert.equal(r.text, doc.markdown);
  assert.equal(r.originalTokens, estimateTokens(doc.markdown));
  // The threshold is max(800, 1.25 × budget): a 3,000-token budget keeps a ~3,700-token page whole.
  const mid = carReview();
  assert.ok(mid.markdown.length / 4 < 3750 && mid.markdown.length / 4 > 1000);
  assert.equal(extractForQuery(mid, "price", 3000).extracted, false);
  assert.equal(extractForQuery(mid, "price", 200).extracted, true);
});

Deno.test("query: a question that matches nothing returns the whole page, confidence low", () => {
  const doc = carReview();
  const r = extractForQuery(doc, "submarine periscope depth");
  assert.equal(r.extracted, false);
  assert.equal(r.confidence, "low");
  assert.equal(r.text, doc.markdown);
  const empty = extractForQuery(doc, "   ?! ");
  assert.equal(empty.confidence, "low");
});

Deno.test("query: plain-word questions find the answer (stop words, inflections)", () => {
  const doc = carReview();
  const range = extractForQuery(doc, "How far can it go on one full charge?");
  assert.equal(range.extracted, true);
  assert.ok(range.text.includes("412 kilometres"), range.text);
  assert.ok(range.returnedTokens <= QUERY_DEFAULT_TOKENS);
  const price = extractForQuery(doc, "what does it cost", 100);
  // "cost" meets "costs"; the answer is in the Price section.
  assert.ok(price.text.includes("38,900 euros"), price.text);
  // Heading ancestry comes with the extract, and gaps are marked.
  assert.ok(range.text.includes("## Battery and charging"));
  assert.ok(range.text.includes("# The Aurora EV review"));
  assert.ok(range.text.startsWith(ELISION));
});

Deno.test("query: heading context counts when the paragraph lacks the question's words", () => {
  const parts = ["# Manual"];
  for (let i = 0; i < 15; i++) parts.push(`## Chapter ${i}`, filler(i, 8));
  parts.splice(9, 0, "## Warranty period", "Coverage lasts for 7 years from the day of delivery.");
  const r = extractForQuery(page(parts), "how long is the warranty", 100);
  assert.ok(r.text.includes("Coverage lasts for 7 years"), r.text);
  assert.equal(r.confidence, "high");
});

Deno.test("query: an oversized best section is cut to its best parts, not its first blocks", () => {
  const parts = ["# Handbook", "## Everything"];
  for (let i = 0; i < 40; i++) parts.push(filler(i, 5));
  parts.splice(30, 0, "The emergency hotline number is 0800 555 0199, open around the clock.");
  parts.push("## Other", filler(999, 3), "## More", filler(998, 3));
  const doc = page(parts);
  const r = extractForQuery(doc, "what is the emergency hotline number", 150);
  assert.equal(r.extracted, true);
  assert.ok(r.text.includes("0800 555 0199"), r.text);
  assert.ok(!r.text.includes(filler(0, 5)), "the section's first paragraph is not the answer");
  assert.ok(r.returnedTokens <= 150, `${r.returnedTokens} tokens`);
  assert.ok(r.text.includes("## Everything"), "the split section keeps its heading");
});

Deno.test("query: code blocks, small tables, lists and quotes are never split", () => {
  const code = "```js\nconst retries = 5; // sprocket retry limit\n" +
    Array.from({ length: 20 }, (_, i) => `call(${i});`).join("\n") + "\n```";
  const table = "| size | sprocket teeth |\n| --- | --- |\n" +
    Array.from({ length: 8 }, (_, i) => `| s${i} | ${i * 3} |`).join("\n");
  const list = Array.from({ length: 6 }, (_, i) => `- sprocket step ${i}\n\n  continued ${i}`)
    .join("\n\n");
  const quote = "> the sprocket quote line one\n>\n> line two of the quote";
  const parts = ["# Doc"];
  for (let i = 0; i < 12; i++) parts.push(`## Part ${i}`, filler(i, 6));
  parts.push("## Sprocket code", code, "## Sprocket table", table);
  parts.push("## Sprocket list", list, "## Sprocket quote", quote);
  const doc = page(parts);
  const r = extractForQuery(doc, "sprocket", 2000);
  for (const whole of [code, table, list, quote]) {
    assert.ok(r.text.includes(whole), `kept whole:\n${whole}`);
  }
});

Deno.test("query: a table larger than the split size gives rows under its header", () => {
  const rows = Array.from(
    { length: 120 },
    (_, i) => `| item${i} | ${filler(i, 1)} |`,
  );
  rows[77] = "| gizmo | the gizmo weighs 4.2 kilograms |";
  const table = "| name | notes |\n| --- | --- |\n" + rows.join("\n");
  const doc = page([
    "# Catalogue",
    "## Parts",
    table,
    "## Notes",
    filler(1, 40),
    "## End",
    filler(2, 3),
  ]);
  const r = extractForQuery(doc, "how heavy is the gizmo weighs", 120);
  const head = r.text.indexOf("| name | notes |\n| --- | --- |\n");
  assert.ok(head >= 0 && head < r.text.indexOf("| gizmo | the gizmo weighs"), r.text);
  assert.ok(!r.text.includes("| item0 |"), "not the table's first rows");
  assert.ok(r.returnedTokens <= 120);
});

Deno.test("query: pages with fewer than two headings are ranked by paragraphs", () => {
  const paras = Array.from({ length: 50 }, (_, i) => filler(i, 4));
  paras[33] = "Registration closes on the fourteenth of March at noon.";
  const doc = page(["# Only heading", ...paras]);
  assert.equal(doc.sections.length, 1);
  const r = extractForQuery(doc, "when does registration close", 100);
  assert.equal(r.extracted, true);
  assert.ok(r.text.includes("fourteenth of March"), r.text);
  assert.ok(r.sectionsSelected >= 1);
});

Deno.test("query: confidence is high when the best section covers half the terms, else medium", () => {
  const doc = carReview();
  assert.equal(extractForQuery(doc, "battery charging minutes", 200).confidence, "high");
  // One matched term out of four.
  assert.equal(
    extractForQuery(doc, "battery submarine periscope trombone", 200).confidence,
    "medium",
  );
});

Deno.test("query: the index is built once per Document and reused", () => {
  const doc = carReview();
  assert.equal(hasQueryIndex(doc), false);
  extractForQuery(doc, "price", 200);
  assert.equal(hasQueryIndex(doc), true);
  const before = doc.approxBytes();
  extractForQuery(doc, "battery", 200);
  assert.equal(doc.approxBytes(), before, "no second index");
});

Deno.test("question terms: stop words dropped, inflections meet, identifiers kept", () => {
  assert.deepEqual(questionTerms("How far can it go on a charge?").terms, ["far", "go", "charg"]);
  for (
    const [a, b] of [["charging", "charge"], ["indentation", "indent"], ["policies", "policy"]]
  ) {
    assert.equal(stem(a), stem(b), `${a} ~ ${b}`);
  }
  assert.ok(questionTerms("what does Array.prototype.at do").terms.includes("at"));
  assert.deepEqual(questionTerms("the who").terms, ["the", "who"], "only stop words: kept");
  assert.equal(questionTerms("x ".repeat(200) + "y z").terms.length <= 64, true);
});

Deno.test("query (property): only the page's own text, within budget", () => {
  const word = fc.constantFrom(
    "alpha",
    "beta",
    "gamma",
    "delta",
    "omega",
    "sigma",
    "kappa",
    "theta",
    "lambda",
    "zeta",
  );
  const para = fc.array(word, { minLength: 3, maxLength: 60 }).map((w) => w.join(" ") + ".");
  const block = fc.oneof(
    para,
    para.map((p) => "```\n" + p + "\n```"),
    fc.array(para, { minLength: 1, maxLength: 5 }).map((ps) => ps.map((p) => "- " + p).join("\n")),
  );
  const section = fc.tuple(fc.integer({ min: 1, max: 4 }), word, fc.array(block, { maxLength: 8 }))
    .map(([level, h, blocks]) => `${"#".repeat(level)} ${h}\n\n${blocks.join("\n\n")}`);
  fc.assert(
    fc.property(
      fc.array(section, { minLength: 1, maxLength: 40 }),
      fc.array(word, { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 64, max: 1500 }),
      (sections, q, budget) => {
        const doc = page(sections);
        const r = extractForQuery(doc, q.join(" "), budget);
        if (!r.extracted) return r.text === doc.markdown;
        if (!r.overBudget) assert.ok(r.returnedTokens <= budget, `${r.returnedTokens} > ${budget}`);
        assert.equal(r.returnedTokens, estimateTokens(r.text));
        for (const piece of r.text.split("\n\n")) {
          if (piece === ELISION) continue;
          assert.ok(doc.markdown.includes(piece), `not from the page: ${piece.slice(0, 80)}`);
        }
        return true;
      },
    ),
    { numRuns: 150 },
  );
});
