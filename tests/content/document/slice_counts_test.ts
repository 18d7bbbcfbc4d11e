/**
 * The slices' counts made in the background are the counts a search makes
 * itself: every slice's block, the block followed by a blank line, and the
 * estimate of its text, on the fixture pages in every script; a search's
 * answer is the same whether its slices were counted before or not; the background count starts only
 * after a search made the counts, fills them all, and stops when the
 * Document gives back its memory.
 */
import assert from "node:assert/strict";
import {
  countTokensSync,
  estimateTokens,
  tokenizerReady,
} from "../../../lib/content/tokens/count.ts";
import { COUNTED_PAGES, fixturePage } from "../../support/fixture_pages.ts";
import type { Document } from "../../../lib/content/document/document.ts";
import {
  countSlices,
  countSlicesLater,
  renderSlices,
  type SliceCountKind,
  sliceCounts,
  sliceEntries,
  sliceHead,
  textFromBlock,
} from "../../../lib/content/document/views.ts";
import { view } from "../../../lib/views/view.ts";
import { pageRequestSchema, parseWith } from "../../../lib/views/request.ts";

const PAGES = COUNTED_PAGES;

/** A kept count, or -1 when none is kept. */
const kept = (doc: Document, i: number, kind: SliceCountKind) =>
  sliceCounts(doc).get(i, kind, () => -1);

/** The searches: two words of each slice's label, and one of its text. */
function searches(doc: Document): string[] {
  const words = doc.slices.flatMap((_, i) => doc.sliceText(i).match(/\p{L}{4,}/gu) ?? []);
  return [...new Set(words)].filter((_, i) => i % 7 === 0).slice(0, 40);
}

Deno.test("slice counts: counted ahead, each slice's block and block with a break are the tokenizer's, its estimate the estimate's", async () => {
  await tokenizerReady();
  for (const name of PAGES) {
    const doc = await fixturePage(name);
    assert.equal(countSlices(doc, sliceCounts(doc)), doc.slices.length);
    for (const e of sliceEntries(doc, doc.slices.map((_, i) => i))) {
      // The block as a search shows it: one slice, whole.
      const block = renderSlices([e], Infinity).text;
      assert.equal(kept(doc, e.index, "block"), countTokensSync(block), `${name} ${e.index}`);
      assert.equal(
        kept(doc, e.index, "followed"),
        countTokensSync(`${block}\n\n`),
        `${name} ${e.index}`,
      );
      assert.equal(kept(doc, e.index, "estimate"), estimateTokens(e.text), `${name} ${e.index}`);
    }
  }
});

Deno.test("slice counts: a search answers the same with its slices counted ahead or not", async () => {
  await tokenizerReady();
  for (const name of PAGES) {
    const fresh = await fixturePage(name);
    const counted = await fixturePage(name);
    countSlices(counted, sliceCounts(counted));
    for (const search of searches(fresh)) {
      for (const max_tokens of [120, 400, 5000]) {
        const ask = (doc: Document) =>
          view(doc, parseWith(pageRequestSchema, { url: doc.url, search, max_tokens }));
        const a = ask(fresh);
        const b = ask(counted);
        assert.equal(b.body, a.body, `${name} '${search}' at ${max_tokens}`);
        assert.equal(b.returnedTokens, a.returnedTokens, `${name} '${search}' at ${max_tokens}`);
      }
    }
  }
});

Deno.test("slice counts: counted in the background after a search, all of them; stopped on release", async () => {
  await tokenizerReady();
  const doc = await fixturePage("handbook.html");
  // No search yet: nothing to fill.
  countSlicesLater(doc);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(doc.slices.every((_, i) => kept(doc, i, "block") === -1));
  view(doc, parseWith(pageRequestSchema, { url: doc.url, search: "the", max_tokens: 100 }));
  countSlicesLater(doc);
  const all = () => doc.slices.every((_, i) => kept(doc, i, "block") >= 0);
  for (let wait = 0; wait < 500 && !all(); wait++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.ok(all(), "every slice counted");
  assert.ok(doc.slices.every((_, i) => kept(doc, i, "followed") >= 0));
  // Released: the counts are dropped, and a step left over does not make new ones.
  const other = await fixturePage("guide.html");
  view(other, parseWith(pageRequestSchema, { url: other.url, search: "the", max_tokens: 60 }));
  countSlicesLater(other);
  other.release();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(other.slices.every((_, i) => kept(other, i, "block") === -1));
});

Deno.test("slice counts: a slice's text counted from its block's count is the tokenizer's count of the text", async () => {
  await tokenizerReady();
  let checked = 0;
  const bodies: string[] = [];
  const more = ["answer_shape_spec.html", "slug_ids_spec.html", "joined_names_spec.html"];
  for (const name of [...PAGES, ...more]) {
    const doc = await fixturePage(name);
    for (const e of sliceEntries(doc, doc.slices.map((_, i) => i))) {
      const body = e.text.trim();
      bodies.push(body);
      const head = sliceHead(e);
      const block = countTokensSync(head + body);
      assert.equal(textFromBlock(head, body, block, countTokensSync), countTokensSync(body), name);
      checked++;
    }
  }
  assert.ok(checked >= 40, `${checked} slices`);
  // Bodies that start with every kind of character, under labels that end in punctuation.
  const starts = [
    "/",
    "//x",
    "- item",
    "-->",
    "*",
    "#",
    "`",
    "'",
    "|",
    "...",
    "１",
    "日本",
    "٣",
    "\u00e9",
  ];
  for (const start of starts) {
    for (const label of ["Intro", "1.2 (a)", "end...", "--", "日本語"]) {
      const e = { index: 7, label, text: `${start} ${bodies[checked % bodies.length]}` };
      const body = e.text.trim();
      const head = sliceHead(e);
      const block = countTokensSync(head + body);
      assert.equal(
        textFromBlock(head, body, block, countTokensSync),
        countTokensSync(body),
        JSON.stringify([start, label]),
      );
    }
  }
});
