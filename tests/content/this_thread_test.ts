/**
 * A large page converted on this thread (the one-shot CLI's way, see
 * `convertOnThisThread`) gives its bytes up once decoded, as it would to a
 * worker: the caller's array is empty afterwards, and the Document is the
 * one its text gives. A small page, or one whose charset is not named
 * (`encoding`), keeps its bytes.
 */
import assert from "node:assert/strict";
import {
  convertOnThisThread,
  htmlDocument,
  type Resource,
  toDocument,
} from "../../lib/content/pipeline.ts";
import { WORKER_MIN_CHARS } from "../../lib/content/workers/pool.ts";

convertOnThisThread();

/** A page of about `chars` characters, with a few characters past Latin-1. */
function page(chars: number): string {
  const part = (i: number) =>
    `<h2 id="p${i}">Part ${i} — ünïcode ✓</h2><p>${"Words of the page, and more. ".repeat(8)}</p>`;
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    parts.push(part(i));
    length += parts[i].length;
  }
  return `<html><head><title>A page</title></head><body><main>${
    parts.join("\n")
  }</main></body></html>`;
}

function resource(html: string, named: boolean): Resource & { bytes: Uint8Array } {
  const bytes = new TextEncoder().encode(html);
  return {
    url: "https://example.test/page",
    contentType: "text/html",
    bytes,
    text: () => new TextDecoder().decode(bytes),
    ...(named ? { encoding: () => "utf-8" } : {}),
  };
}

Deno.test("this thread: a large page's bytes are given up once decoded, its Document unchanged", async () => {
  const html = page(WORKER_MIN_CHARS + 1000);
  const r = resource(html, true);
  const doc = await toDocument(r);
  assert.equal(r.bytes.length, 0);
  const expected = htmlDocument(html, r.url);
  assert.equal(doc.markdown, expected.markdown);
  assert.ok(doc.markdown.includes("Part 12 — ünïcode ✓"));
  assert.equal(doc.sections.length, expected.sections.length);
  assert.equal(doc.sectionOfAnchor("p40"), expected.sectionOfAnchor("p40"));
});

Deno.test("this thread: a small page, or one whose charset is not named, keeps its bytes", async () => {
  for (const [chars, named] of [[20_000, true], [WORKER_MIN_CHARS + 1000, false]] as const) {
    const html = page(chars);
    const r = resource(html, named);
    const length = r.bytes.length;
    const doc = await toDocument(r);
    assert.equal(r.bytes.length, length);
    assert.equal(doc.markdown, htmlDocument(html, r.url).markdown);
  }
});
