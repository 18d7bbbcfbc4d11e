/**
 * Sections, slices, the query language and BM25 search, on Documents built
 * from Markdown written here.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Document } from "../../../lib/content/document/document.ts";
import { parseQuery } from "../../../lib/content/search/query.ts";
import { SLICE_MAX } from "../../../lib/content/document/slices.ts";
import { findSections, outlineView } from "../../../lib/content/document/views.ts";

// Filler so each section of the sample fills a slice of its own.
const FILL = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(16);

function doc(markdown: string): Document {
  return new Document({ url: "https://example.org/", kind: "markdown", title: "T", markdown });
}

const SAMPLE = `# Guide

Intro text about widgets.

${FILL}

## 1. Installing

Run the installer. The installer needs root.

${FILL}

\`\`\`sh
# not a heading: a shell comment
install --all
\`\`\`

## 2. Tree construction

The tree construction stage builds the DOM tree from tokens.
Parsing errors are recovered.

${FILL}

### 2.1 Insertion modes

The insertion mode decides what happens to each token.

${FILL}

## 3. Troubleshooting

Widgets that squeak need oil. The parser may complain about unclosed tags.

${FILL}

## 日本語

東京都の工場で作られたウィジェット。`;

Deno.test("sections: tree, slugs, levels, dividers, code blocks ignored", () => {
  const d = doc(SAMPLE + "\n\n## Empty\n\n## Empty\n\nafter");
  assert.deepEqual(d.sections.map((s) => s.title), [
    "Guide",
    "1. Installing",
    "2. Tree construction",
    "2.1 Insertion modes",
    "3. Troubleshooting",
    "日本語",
    "Empty",
    "Empty",
  ]);
  assert.deepEqual(d.sections.map((s) => s.slug), [
    "guide",
    "1-installing",
    "2-tree-construction",
    "2-1-insertion-modes",
    "3-troubleshooting",
    "日本語",
    "empty",
    "empty-1",
  ]);
  assert.equal(d.sections[3].parent, 2);
  assert.deepEqual(d.sections[0].children, [1, 2, 4, 5, 6, 7]);
  assert.equal(d.sections[6].headerOnly, true);
  assert.equal(d.sections[7].headerOnly, false);
  assert.ok(d.sectionText(2, true).includes("Insertion modes"));
  assert.ok(!d.sectionText(2).includes("Insertion modes"));
});

Deno.test("sections: lookup by name, number-stripped name, slug, fuzzy, with suggestions", () => {
  const d = doc(SAMPLE);
  const found = findSections(d, [
    "2. Tree construction",
    "tree construction",
    "Insertion modes",
    "#2-1-insertion-modes",
    "TROUBLESHOOTING",
    "tree_construction",
    "Instaling",
  ]);
  assert.deepEqual(found.map((f) => f.index), [2, 2, 3, 3, 4, 2, undefined]);
  assert.deepEqual(found.map((f) => f.via), [
    "name",
    "number-stripped name",
    "number-stripped name",
    "slug",
    "number-stripped name",
    "fuzzy",
    undefined,
  ]);
  assert.ok(found[6].suggestions.length === 0 || found[6].suggestions.includes(1));
  const near = findSections(d, ["Installing widgets"])[0];
  assert.equal(near.index, undefined);
  assert.equal(near.suggestions[0], 1, "closest match first");
});

Deno.test("outline: windows of 100 with negative and clamped indexes", () => {
  const d = doc(Array.from({ length: 250 }, (_, i) => `## Part ${i}\n\ntext ${i}`).join("\n\n"));
  const first = outlineView(d, 0);
  assert.equal(first.total, 250);
  assert.equal(first.windows, 3);
  assert.equal(first.lines.length, 101);
  assert.equal(first.lines[0], "- Part 0 (#part-0)");
  assert.equal(first.lines.at(-1), "(… 150 more sections)");
  const last = outlineView(d, -1);
  assert.equal(last.window, 2);
  assert.equal(last.clampedFrom, undefined);
  assert.equal(last.lines[0], "(… 200 earlier sections)");
  assert.equal(last.lines.length, 51);
  const clamped = outlineView(d, 9);
  assert.equal(clamped.window, 2);
  assert.equal(clamped.clampedFrom, 9);
  assert.equal(outlineView(d, -9).window, 0);
});

Deno.test("slices: about 2,000 characters, at block boundaries, code kept whole, labelled", () => {
  const para = (i: number) => `Paragraph ${i} ` + "word ".repeat(60);
  const code = "```js\n" + Array.from({ length: 20 }, (_, i) => `const x${i} = ${i};`).join("\n") +
    "\n```";
  const text = [
    "# Top",
    ...Array.from({ length: 8 }, (_, i) => para(i)),
    "## Code",
    code,
    ...Array.from({ length: 8 }, (_, i) => para(100 + i)),
    "## Huge",
    "x".repeat(5000),
  ].join("\n\n");
  const d = doc(text);
  const slices = d.slices;
  for (const s of slices) {
    assert.ok(s.end - s.start <= SLICE_MAX, `slice ${s.index} is ${s.end - s.start} characters`);
    const body = d.sliceText(s.index);
    // Fences are balanced inside every slice: code blocks are never split.
    assert.equal(
      (body.match(/^```/gm) ?? []).length % 2,
      0,
      `slice ${s.index} splits a code block`,
    );
  }
  // Contiguous coverage: every non-blank character is in a slice.
  const covered = slices.map((s) => d.sliceText(s.index)).join("").replace(/\s/g, "");
  assert.equal(covered, text.replace(/\s/g, ""));
  assert.equal(slices[0].ancestry, "Top");
  assert.ok(slices.some((s) => s.ancestry === "Top > Code"));
  const huge = slices.filter((s) => s.ancestry === "Top > Huge");
  assert.ok(huge.length >= 3);
  assert.deepEqual(huge.map((s) => s.part?.at), huge.map((_, i) => i + 1));
});

Deno.test("query: operators parse; junk is dropped and reported", () => {
  const q = parseQuery('+tree -oil "insertion mode"~2 (parser OR tokens) fuzzy~ AND root');
  assert.deepEqual(q.warnings, []);
  assert.equal(q.root.must.length, 3, JSON.stringify(q.root));
  const lenient = parseQuery('tree ) ( "unclosed AND');
  assert.ok(lenient.warnings.length >= 2, lenient.warnings.join("; "));
  assert.ok(lenient.root.should.length + lenient.root.must.length >= 1);
  const empty = parseQuery("!!! ??? ...");
  assert.equal(empty.root.should.length + empty.root.must.length, 0);
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (s) => {
      const parsed = parseQuery(s);
      assert.ok(Array.isArray(parsed.warnings));
    }),
    { numRuns: 500 },
  );
});

Deno.test("search: each operator changes the results as documented", () => {
  const d = doc(SAMPLE);
  const titles = (q: string) =>
    d.index.search(q).hits.map((h) => d.slices[h.index].ancestry.split(" > ").at(-1));
  // Whitespace is OR; headings count double.
  assert.equal(titles("tree construction")[0], "2. Tree construction");
  // Required and excluded terms.
  assert.deepEqual(titles("+parser +tags"), ["3. Troubleshooting"]);
  assert.ok(!titles("parser -squeak").includes("3. Troubleshooting"));
  // Phrases, and phrase slop.
  assert.deepEqual(titles('"tree construction stage"'), ["2. Tree construction"]);
  assert.deepEqual(titles('"installer root"'), []);
  assert.deepEqual(titles('"installer root"~2'), ["1. Installing"]);
  // Groups.
  assert.deepEqual(titles("(squeak OR insertion) +oil"), ["3. Troubleshooting"]);
  assert.deepEqual(titles("widgets AND oil"), ["3. Troubleshooting"]);
  // Fuzzy.
  assert.deepEqual(titles("instaler"), []);
  assert.ok(titles("instaler~").includes("1. Installing"));
  // Unspaced scripts match inside runs.
  assert.deepEqual(titles("東京都"), ["日本語"]);
  assert.deepEqual(titles("工場"), ["日本語"]);
  assert.deepEqual(titles("都工"), [], "a substring that does not occur");
  // Case-insensitive.
  assert.deepEqual(titles("TREE"), titles("tree"));
});

Deno.test("search: results are bounded and deterministic", () => {
  const d = doc(
    Array.from({ length: 300 }, (_, i) => `## Section ${i}\n\nalpha beta gamma ${i}\n\n${FILL}`)
      .join("\n\n"),
  );
  const a = d.index.search("alpha");
  assert.equal(a.hits.length, 50);
  assert.deepEqual(a.hits, d.index.search("alpha").hits);
  assert.equal(d.index.search("-alpha").hits.length, 0);
});
