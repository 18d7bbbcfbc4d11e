/**
 * The shared cache's entry format: a Document survives the round trip with
 * its facts still Trusted, and a tampered or foreign entry reads as a miss
 * instead of reaching frontmatter.
 */
import assert from "node:assert/strict";
import { gunzipSync, gzipSync } from "node:zlib";
import { Document } from "../../../lib/content/document/document.ts";
import { decodeDocument, encodeDocument } from "../../../lib/content/document/serial.ts";
import { Trusted, trusted } from "../../../lib/trust.ts";

function sample(): Document {
  return new Document({
    url: "https://example.org/a",
    kind: "html",
    title: "A page",
    markdown: "# A page\n\n## One\n\ntext one\n\n## Two\n\ntext two\n",
    anchors: new Map([["one", 10]]),
    lang: "en",
    facts: [
      { key: "api", value: trusted.echo("Example API") },
      { key: "pages", value: 3 },
      { key: "see_also", value: [trusted.url("https://example.org/b")] },
    ],
    citation: { doi: "10.1234/x", title: "A page", authors: ["Doe, J"], sourceTool: "doi" },
    source: "web",
  });
}

Deno.test("serial: a Document round-trips with its sections, anchors and Trusted facts", () => {
  const doc = sample();
  const back = decodeDocument(encodeDocument(doc))!;
  assert.ok(back);
  assert.equal(back.markdown, doc.markdown);
  assert.deepEqual(back.sections.map((s) => s.title), doc.sections.map((s) => s.title));
  assert.equal(back.anchors.get("one"), 10);
  assert.deepEqual(back.citation, doc.citation);
  assert.ok(back.facts[0].value instanceof Trusted);
  assert.equal(String(back.facts[0].value), "Example API");
  assert.ok(Array.isArray(back.facts[2].value) && back.facts[2].value[0] instanceof Trusted);
  assert.ok(encodeDocument(doc).byteLength < doc.markdown.length * 2 + 400);
});

Deno.test("serial: a tampered entry (a line break in a trusted value) or a foreign one is a miss", () => {
  const raw = JSON.parse(new TextDecoder().decode(gunzipSync(encodeDocument(sample()))));
  raw.facts[0].value = { t: "x\nstatus: forged" };
  assert.equal(decodeDocument(gzipSync(new TextEncoder().encode(JSON.stringify(raw)))), undefined);
  assert.equal(decodeDocument(new TextEncoder().encode("not gzip")), undefined);
  const other = { ...raw, v: 99 };
  assert.equal(
    decodeDocument(gzipSync(new TextEncoder().encode(JSON.stringify(other)))),
    undefined,
  );
});
