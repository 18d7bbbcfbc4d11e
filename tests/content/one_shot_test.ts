/**
 * The pipeline of a one-shot process (`convertOnThisThread`, what the CLI's
 * `fetch` and `sections` call): a large HTML page converts on the calling
 * thread into the same Document a conversion from its text gives, and
 * gives up its bytes once they are decoded (as a server gives them to its
 * worker); a small page, and any page that is not HTML, keeps its bytes.
 * A file of its own: the setting holds for the whole process (here, this
 * module's).
 */
import assert from "node:assert/strict";
import { convertOnThisThread, htmlDocument, toDocument } from "../../lib/content/pipeline.ts";

convertOnThisThread();

/** A resource of `text` served as `contentType` in UTF-8, its text decoded from its bytes. */
function resource(url: string, contentType: string, text: string) {
  const bytes = new TextEncoder().encode(text);
  return {
    url,
    contentType,
    bytes,
    text: () => new TextDecoder().decode(bytes),
    encoding: () => "utf-8",
  };
}

/** A page of `parts` sections, with ids (over 512 K characters from 2,500 on). */
function page(parts: number): string {
  const body = Array.from(
    { length: parts },
    (_, i) => `<h2 id="part-${i}">Part ${i} é</h2><p>${"words of the page ".repeat(14)}</p>`,
  );
  return `<html><head><title>Parts</title></head><body><main>${body.join("")}</main></body></html>`;
}

Deno.test("one-shot: a large page converts here, the same, and gives up its bytes", async () => {
  const html = page(2500);
  assert.ok(html.length > 512 * 1024, "over the conversion worker's threshold");
  const url = "https://example.test/large";
  const served = resource(url, "text/html", html);
  const doc = await toDocument(served);
  assert.equal(served.bytes.length, 0, "the bytes were given back once decoded");
  const here = htmlDocument(html, url, { contentType: "text/html" });
  assert.equal(doc.markdown, here.markdown);
  assert.equal(doc.title, "Parts");
  assert.deepEqual(doc.sections, here.sections);
  assert.deepEqual([...doc.anchors], [...here.anchors]);
  assert.equal(doc.sectionOfAnchor("part-2400"), here.sectionOfAnchor("part-2400"));
  assert.equal(doc.tokens, here.tokens);
  assert.equal(doc.indexed, false, "nothing indexed before a view asks");
  assert.deepEqual(doc.index.search("part 17"), here.index.search("part 17"));
});

Deno.test("one-shot: a small page and a large page of text keep their bytes", async () => {
  const small = resource("https://example.test/small", "text/html", page(20));
  await toDocument(small);
  assert.ok(small.bytes.length > 0);
  const text = resource("https://example.test/notes.txt", "text/plain", "a line\n".repeat(100_000));
  const doc = await toDocument(text);
  assert.ok(text.bytes.length > 0);
  assert.equal(doc.kind, "text");
});
