/**
 * The views on three real pages (PEP 8, ECMA-262, WHATWG HTML) from the
 * shared captures. Skipped, visibly, without PARKOUR_SHARED_DIR.
 */
import { realPageHtml, sharedDir } from "../support/shared.ts";
import assert from "node:assert/strict";
import type { Document } from "../../lib/content/document/document.ts";
import { htmlDocument } from "../../lib/content/pipeline.ts";
import { findSections, outlineView } from "../../lib/content/document/views.ts";
import { words } from "../../lib/content/search/words.ts";
import { containsPhrase } from "../../lib/content/search/bm25.ts";

const SHARED = sharedDir();
const skip = SHARED ? "" : " — SKIPPED: set PARKOUR_SHARED_DIR";

async function page(name: string, url: string): Promise<Document> {
  return htmlDocument(await realPageHtml(name), url);
}

const cache = new Map<string, Promise<Document>>();
const load = (name: string, url: string) => {
  if (!cache.has(name)) cache.set(name, page(name, url));
  return cache.get(name)!;
};
const pep8 = () => load("pep_8", "https://peps.python.org/pep-0008/");
const ecma = () => load("ecma262", "https://tc39.es/ecma262/");
const whatwg = () => load("whatwg_html", "https://html.spec.whatwg.org/");

/** Words of each hit: its text and its heading path (both fields are searched). */
function hitWords(doc: Document, query: string): string[][] {
  return doc.index.search(query).hits.map((h) => [
    ...words(doc.sliceText(h.index)),
    ...words(doc.slices[h.index].ancestry),
  ]);
}

/** Checks each operator against the text of every hit it returns. */
function checkOperators(
  doc: Document,
  terms: { a: string; b: string; phrase: string; misspelt: string; right: string },
) {
  const both = hitWords(doc, `+${terms.a} +${terms.b}`);
  assert.ok(both.length > 0, "required terms found");
  for (const w of both) assert.ok(w.includes(terms.a) && w.includes(terms.b));
  const without = hitWords(doc, `${terms.a} -${terms.b}`);
  assert.ok(without.length > 0, "exclusion leaves hits");
  for (const w of without) assert.ok(!w.includes(terms.b));
  const phrase = terms.phrase.split(" ");
  const phraseHits = hitWords(doc, `"${terms.phrase}"`);
  assert.ok(phraseHits.length > 0, "phrase found");
  for (const w of phraseHits) assert.ok(containsPhrase(w, phrase, 0));
  const slop = hitWords(doc, `"${phrase[0]} ${phrase.at(-1)}"~${phrase.length}`);
  assert.ok(slop.length >= phraseHits.length, "slop widens the phrase");
  // A required group: every hit has the required word and one of the group's.
  const grouped = hitWords(doc, `+(${terms.a} OR ${terms.b}) +${phrase[0]}`);
  assert.ok(grouped.length > 0, "required group found");
  for (const w of grouped) {
    assert.ok(w.includes(phrase[0]) && (w.includes(terms.a) || w.includes(terms.b)));
  }
  // An optional group only ranks: it returns at least as many hits.
  assert.ok(
    doc.index.search(`(${terms.a} OR ${terms.b}) +${phrase[0]}`).hits.length >= grouped.length,
  );
  assert.equal(hitWords(doc, terms.misspelt).length, 0, "the misspelling alone finds nothing");
  const fuzzy = hitWords(doc, `${terms.misspelt}~`);
  assert.ok(
    fuzzy.length > 0 && fuzzy.some((w) => w.includes(terms.right)),
    "fuzzy finds the right spelling",
  );
}

Deno.test({
  name: `real pages: PEP 8 sections and search${skip}`,
  ignore: !SHARED,
  async fn() {
    const doc = await pep8();
    assert.equal(doc.title, "PEP 8 – Style Guide for Python Code | peps.python.org");
    const names = doc.sections.map((s) => s.title);
    for (
      const n of [
        "Introduction",
        "Tabs or Spaces?",
        "Maximum Line Length",
        "Naming Conventions",
        "Copyright",
      ]
    ) {
      assert.ok(names.includes(n), n);
    }
    const [tabs] = findSections(doc, ["tabs-or-spaces"]);
    assert.match(doc.sectionText(tabs.index!), /Spaces are the preferred indentation method/);
    const [byName] = findSections(doc, ["maximum line length"]);
    assert.match(doc.sectionText(byName.index!), /79 characters/);
    const hit = doc.index.search("trailing commas tuple").hits[0];
    assert.match(doc.slices[hit.index].ancestry, /When to Use Trailing Commas/);
    checkOperators(doc, {
      a: "import",
      b: "module",
      phrase: "wildcard imports",
      misspelt: "indentaton",
      right: "indentation",
    });
    // Code samples survive whole.
    assert.match(
      doc.markdown,
      /```\n# Correct:\n\n# Aligned with opening delimiter\.\nfoo = long_function_name\(var_one, var_two,\n {25}var_three, var_four\)/,
    );
  },
});

Deno.test({
  name: `real pages: ECMA-262 outline windows, fragments and search${skip}`,
  ignore: !SHARED,
  async fn() {
    const doc = await ecma();
    assert.ok(doc.sections.length > 2000, `${doc.sections.length} sections`);
    const first = outlineView(doc, 0);
    assert.ok(first.windows >= 20);
    assert.equal(first.lines.length, 101);
    const last = outlineView(doc, -1);
    assert.equal(last.window, first.windows - 1);
    assert.match(last.lines[0], /^\(… \d+ earlier sections\)$/);
    assert.equal(outlineView(doc, 10_000).clampedFrom, 10_000);
    const [flat] = findSections(doc, ["sec-array.prototype.flat"]);
    assert.equal(doc.sections[flat.index!].title, "23.1.3.13 Array.prototype.flat ( [ depth ] )");
    assert.match(doc.sectionText(flat.index!), /FlattenIntoArray/);
    const [byName] = findSections(doc, ["Array.prototype.flat"]);
    assert.equal(byName.index, flat.index);
    // Clause numbers give the tree: 23.1.3.13 sits under 23.1.3.
    const parent = doc.sections[doc.sections[flat.index!].parent];
    assert.match(parent.title, /^23\.1\.3 Properties of the Array Prototype Object/);
    checkOperators(doc, {
      a: "promise",
      b: "resolve",
      phrase: "abrupt completion",
      misspelt: "algoritm",
      right: "algorithm",
    });
  },
});

Deno.test({
  name: `real pages: WHATWG HTML fragments, element ids and search${skip}`,
  ignore: !SHARED,
  async fn() {
    const doc = await whatwg();
    assert.ok(doc.sections.length > 1000);
    const [img] = findSections(doc, ["#the-img-element"]);
    assert.match(doc.sections[img.index!].title, /The img element$/);
    const [alt] = findSections(doc, ["dom-img-alt"]);
    assert.equal(alt.via, "anchor");
    assert.ok(
      alt.index! >= img.index! &&
        doc.sections[alt.index!].start < doc.sections[img.index!].subtreeEnd,
    );
    const windows = outlineView(doc, 0).windows;
    assert.ok(windows >= 12);
    assert.equal(outlineView(doc, -windows).window, 0);
    checkOperators(doc, {
      a: "canvas",
      b: "context",
      phrase: "tree construction",
      misspelt: "atribute",
      right: "attribute",
    });
    const top = doc.index.search("img alt attribute requirements").hits[0];
    assert.match(doc.slices[top.index].ancestry, /img|image|alt/i);
  },
});
