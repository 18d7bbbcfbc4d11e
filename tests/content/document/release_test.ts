/**
 * A Document the page cache lets go gives its indexes' typed arrays back at
 * once (not at V8's next full collection), and stays correct for whoever
 * still holds it (a library `Page`, a call that loaded it just before): the
 * views it answers after release are the ones it answered before.
 */
import assert from "node:assert/strict";
import { htmlDocument } from "../../../lib/content/pipeline.ts";
import { hasQueryIndex } from "../../../lib/content/question/extract.ts";
import { PageCache } from "../../../lib/net/cache.ts";
import { view } from "../../../lib/views/view.ts";
import type { Document } from "../../../lib/content/document/document.ts";
import { sizedPage } from "../../support/sized_pages.ts";

const SEARCH = { url: "https://a.test/", search: "chapter OR element" };
const QUESTION = {
  url: "https://a.test/",
  query: "what does the first chapter say about the default value",
};
const SECTION_TOKENS = (doc: Document) => doc.sections.map((_, i) => doc.sectionTokens(i, true));

Deno.test("release: an evicted Document frees its arrays now and answers the same afterwards", () => {
  const doc = htmlDocument(sizedPage(600_000, 3), "https://a.test/");
  const before = {
    search: view(doc, SEARCH).body,
    question: view(doc, QUESTION).body,
    tokens: SECTION_TOKENS(doc),
  };
  assert.ok(doc.indexed && hasQueryIndex(doc), "both indexes are built");
  assert.ok(before.search.length > 0 && before.question.length > 0);
  const cache = new PageCache<Document>({
    maxBytes: doc.approxBytes() + 1024,
    sizeOf: (d) => d.approxBytes(),
    release: (d) => d.release(),
  });
  cache.set("https://a.test/", doc);
  assert.equal(doc.released, false);
  const external = Deno.memoryUsage().external;
  // Another page takes the room: the first is evicted and released.
  cache.set("https://b.test/", htmlDocument(sizedPage(100_000, 4), "https://b.test/"));
  assert.equal(cache.has("https://a.test/"), false);
  assert.equal(doc.released, true);
  const freed = external - Deno.memoryUsage().external;
  assert.ok(freed > 256 * 1024, `typed arrays given back at eviction: ${freed} bytes`);
  assert.equal(doc.indexed, false, "the index goes with its arrays");
  // Whoever still holds it gets the same answers (the indexes are built again).
  assert.deepEqual({
    search: view(doc, SEARCH).body,
    question: view(doc, QUESTION).body,
    tokens: SECTION_TOKENS(doc),
  }, before);
  // Releasing twice is harmless.
  doc.release();
  assert.equal(view(doc, SEARCH).body, before.search);
});

Deno.test("release: a Document stored again before the call ends is kept whole", () => {
  const doc = htmlDocument(sizedPage(200_000, 5), "https://c.test/");
  view(doc, SEARCH);
  const cache = new PageCache<Document>({
    maxBytes: 64 * 1024 * 1024,
    sizeOf: (d) => d.approxBytes(),
    release: (d) => d.release(),
  });
  cache.set("https://c.test/", doc);
  // A recount (its index grew) stores the same Document under the same key.
  cache.set("https://c.test/", doc);
  // The same Document under a second key, then the first key dropped.
  cache.set("https://c.test/#full", doc, "full");
  cache.delete("https://c.test/");
  assert.equal(doc.released, false);
  assert.equal(doc.indexed, true);
  cache.delete("https://c.test/#full", "full");
  assert.equal(doc.released, true);
});
