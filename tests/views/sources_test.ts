/**
 * The one view function on a Document of every source: each view kind, on
 * pages of the web path and of every first-party source, replayed from
 * `fixtures/http` (YouTube is read by its own tools, not as a page). What holds for one holds for all: every section is found
 * by the address the outline shows, every budget holds, a name that is not
 * there comes back with suggestions, and the outline pages in windows.
 */
import assert from "node:assert/strict";
import { ROOT_DIR } from "../support/process.ts";

Deno.env.set("PARKOUR_REPLAY_DIR", `${ROOT_DIR}/fixtures/http`);
const { loadDocument } = await import("../../lib/sources/router.ts");
const { outline, view } = await import("../../lib/views/view.ts");
const { DEFAULT_MAX_BYTES } = await import("../../lib/net/fetch.ts");
const { sharedDir } = await import("../support/shared.ts");

/** Pages whose recorded exchange is a real capture in the shared folder. */
const NEEDS_SHARED = new Set(["ietf", "github", "reddit"]);
const SHARED = sharedDir();

/** One page per source (the URLs the source tests replay). */
const PAGES: Record<string, string> = {
  web: "https://example.org/ferry-guide",
  arxiv: "https://arxiv.org/abs/hep-th/9711200v3",
  ietf: "https://www.rfc-editor.org/rfc/rfc9110",
  mediawiki: "https://wiki.example.org/wiki/Installation_guide",
  github: "https://github.com/python/cpython/issues/100000",
  reddit: "https://www.reddit.com/comments/jlbw48/",
  discourse: "https://discuss.example.org/t/welcome/42",
  huggingface: "https://huggingface.co/acme/tiny-llama-awq",
  doi: "https://doi.org/10.5555/retracted.1",
};

for (const [source, url] of Object.entries(PAGES)) {
  const skipped = NEEDS_SHARED.has(source) && !SHARED;
  Deno.test({
    name: `view on a ${source} Document: every view kind, every budget${
      skipped ? " — SKIPPED: set PARKOUR_SHARED_DIR (real capture)" : ""
    }`,
    ignore: skipped,
  }, async () => {
    const { doc } = await loadDocument(url, { maxBytes: DEFAULT_MAX_BYTES });
    assert.ok(doc.markdown.trim().length > 0, `${source}: no text`);

    // Every section by the address the outline gives it.
    for (const s of doc.sections.slice(0, 30)) {
      const r = view(doc, { url, section: `#${s.id ?? s.slug}`, max_tokens: 2000 });
      assert.equal(r.status, "ok", `${source}: #${s.id ?? s.slug}`);
      assert.ok(r.sectionsReturned?.includes(s.index), `${source}: section ${s.index}`);
      assert.ok(r.returnedTokens <= 2000, `${source}: ${r.returnedTokens} > 2000`);
    }

    // The page within budgets from small to large.
    for (const max_tokens of [50, 300, 5000]) {
      const r = view(doc, { url, max_tokens });
      assert.ok(
        r.returnedTokens <= max_tokens,
        `${source}: page ${r.returnedTokens} > ${max_tokens}`,
      );
      if (r.cut) assert.ok(r.messages.some((m) => m.kind === "hint"), `${source}: a cut says so`);
    }

    // A name that is not there: nothing returned, what it could be instead.
    const missing = view(doc, { url, section: "zzzz no such heading qqqq", max_tokens: 500 });
    assert.equal(missing.status, "not_found");
    assert.equal(missing.body, "");
    assert.ok(missing.returnedTokens <= 500);

    // Search with a word of the page, and slices from both ends.
    const word = (doc.markdown.match(/(?<![\w-])[A-Za-z]{5,}(?![\w-])/) ?? ["the"])[0];
    const search = view(doc, { url, search: word, max_tokens: 800 });
    assert.ok((search.matchedSlices?.length ?? 0) > 0, `${source}: '${word}' not found`);
    assert.ok(search.returnedTokens <= 800, `${source}: search ${search.returnedTokens}`);
    const slices = view(doc, { url, slices: [0, -1], max_tokens: 5000 });
    assert.equal(slices.status, "ok");
    assert.ok((slices.shownSlices?.length ?? 0) >= 1);

    // A question within its budget (or one block larger than it, said so).
    const q = view(doc, { url, query: `what is ${word}?`, max_tokens: 200 });
    assert.ok(
      q.returnedTokens <= 200 || q.extract?.overBudget || q.extract?.extracted === false,
      `${source}: query ${q.returnedTokens}`,
    );

    // The outline in windows of 100.
    const o = outline(doc, { slice: 0 });
    if (doc.sections.length > 0) {
      assert.ok(o.body.split("\n").length <= 101, `${source}: outline window`);
      assert.equal(o.outline?.windows, Math.max(1, Math.ceil(doc.sections.length / 100)));
    }
  });
}
