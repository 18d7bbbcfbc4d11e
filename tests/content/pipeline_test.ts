/**
 * The conversion deadline holds for pages that are not HTML too (plain
 * text, Markdown, JSON, XML are built on the calling thread): past it the
 * page is refused with a `too_slow` ContentError that names its size, not
 * answered late. A short deadline, so that a page of 2 MB is past it.
 */
import assert from "node:assert/strict";
import { toDocument } from "../../lib/content/pipeline.ts";
import { ContentError } from "../../lib/errors.ts";

/** A resource of `text` served as `contentType`. */
function resource(url: string, contentType: string, text: string) {
  const bytes = new TextEncoder().encode(text);
  return { url, contentType, bytes, text: () => new TextDecoder().decode(bytes) };
}

const LINE = "A line of plain text, with words and the number 12345.\n";
const TEXT = LINE.repeat(Math.ceil(2e6 / LINE.length));

for (
  const [kind, url, type] of [
    ["text", "https://example.test/notes.txt", "text/plain"],
    ["markdown", "https://example.test/notes.md", "text/markdown"],
  ] as const
) {
  Deno.test(`pipeline: a page of ${kind} past the conversion deadline is refused as too_slow`, async () => {
    const page = resource(url, type, TEXT);
    const error = await toDocument(page, { deadlineMs: 1 }).then(
      () => assert.fail("the page was converted past its deadline"),
      (e) => e,
    );
    assert.ok(error instanceof ContentError, String(error));
    assert.equal(error.kind, "too_slow");
    assert.match(
      error.message,
      new RegExp(
        `^the page at ${
          url.replaceAll(".", "\\.")
        } \\(2\\.0 MB of text\\) did not convert within .*PARKOUR_CONVERT_DEADLINE_MS allows more time \\(now 1 ms\\)$`,
      ),
    );
    // Within the default deadline the same page converts.
    const doc = await toDocument(page);
    assert.equal(doc.kind, kind);
    assert.ok(doc.markdown.startsWith("A line of plain text"));
  });
}
