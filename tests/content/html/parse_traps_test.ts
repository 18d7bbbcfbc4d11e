/**
 * Constructs that once made the parser swallow the rest of a section or a
 * page (or glue two words), while a browser shows the text: each as a small
 * page through the converter, and all of them in one saved page through the
 * CLI (`fetch --format markdown`), as an agent would read it.
 */
import assert from "node:assert/strict";
import { htmlToMarkdown } from "../../../lib/content/html/markdown.ts";
import { MAIN, ROOT_DIR, runCli } from "../../support/process.ts";

const md = (html: string) => htmlToMarkdown(html, { baseUrl: "https://example.org/" }).markdown;

Deno.test("parse traps: <!-->, <!---> and --!> end their comment, as in a browser", () => {
  assert.equal(md("<p>Before.</p><!--><p>After.</p>"), "Before.\n\nAfter.");
  assert.equal(md("<p>Before.</p><!---><p>After.</p>"), "Before.\n\nAfter.");
  assert.equal(md("<p>Before.</p><!-- note --!><p>After.</p>"), "Before.\n\nAfter.");
  // An unclosed comment still runs to the end, and "--" inside a comment does not close it.
  assert.equal(md("<p>Before.</p><!-- a -- b --><p>After.</p>"), "Before.\n\nAfter.");
  assert.equal(md("<p>Before.</p><!-- never closed <p>hidden</p>"), "Before.");
});

Deno.test("parse traps: self-closed <svg/> and <math/> in HTML do not open a subtree", () => {
  assert.equal(md("<p>Icon <svg/> then text.</p><p>Next.</p>"), "Icon then text.\n\nNext.");
  assert.equal(md("<p>Formula <math/> then text.</p><p>Next.</p>"), "Formula then text.\n\nNext.");
});

Deno.test("parse traps: HTML block tags break out of SVG and MathML", () => {
  assert.equal(md("<svg><g><p>Out of SVG.</p></g></svg><p>Next.</p>"), "Out of SVG.\n\nNext.");
  assert.equal(md("<math><mi>x</mi><div>Out of MathML.</div></math>"), "Out of MathML.");
  // In SVG, <style> is an ordinary element: a "</style>" elsewhere does not swallow the page.
  assert.equal(md("<svg><style>.a{}</style></svg><p>Next.</p>"), "Next.");
});

Deno.test("parse traps: a heading end tag closes any open heading; a heading ends the one before", () => {
  assert.equal(md("<h2>Title</h3><p>Body text.</p>"), "## Title\n\nBody text.");
  assert.equal(
    md("<h2>One<h3>Two</h3><p>Three.</p>"),
    "## One\n\n### Two\n\nThree.",
  );
});

Deno.test("parse traps: <image> is an image", () => {
  assert.equal(md('<p><image src="/c.png" alt="A chart"></p>'), "[Image: A chart]");
});

Deno.test("parse traps: an end tag's quoted attribute may hold '>'", () => {
  assert.equal(
    md('<div><p>One.</p></div title="a>b<!--c"><p>Two.</p><!-- later -->'),
    "One.\n\nTwo.",
  );
});

Deno.test("parse traps: a stray </p> separates words like <p></p>", () => {
  assert.equal(md("<p>text</p>more"), "text\n\nmore");
  assert.equal(md("text</p>more"), "text\n\nmore");
});

Deno.test("parse traps: text a table holds outside its cells comes before the table", () => {
  assert.equal(md("<table>Lead<tr><td>cell</td></tr></table>"), "Lead\n\ncell");
  assert.equal(
    md("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td>Tail<td>d</td></tr></table>"),
    "Tail\n\n| a | b |\n| --- | --- |\n| c | d |",
  );
});

Deno.test("parse traps: every sentence of a page of traps reaches the CLI's Markdown", async () => {
  const page = `${ROOT_DIR}/fixtures/pages/parsing_traps.html`;
  const { code, stdout } = await runCli(
    ["fetch", page, "--format", "markdown"],
    {},
    MAIN,
    [`--allow-read=${ROOT_DIR}/fixtures`],
  );
  assert.equal(code, 0);
  for (
    const sentence of [
      "Alpha sentence follows the abrupt comment.",
      "Bravo sentence follows the dashed comment.",
      "Charlie sentence follows the bang-closed comment.",
      "Delta sentence after the self-closed svg.",
      "Echo sentence after the self-closed math.",
      "Foxtrot sentence breaks out of the SVG.",
      "Golf sentence breaks out of the MathML.",
      "\nIndia sentence is a paragraph, not part of a heading.",
      "### Juliet heading\n",
      "#### Kilo heading\n",
      "Lima sentence follows nested heading tags.",
      "[Image: Mike picture of a chart]",
      "Oscar sentence after the end tag with a quoted greater-than.",
      "Papa word\n\nQuebec word\n\nRomeo word",
    ]
  ) assert.ok(stdout.includes(sentence), `missing: ${JSON.stringify(sentence)}`);
});
