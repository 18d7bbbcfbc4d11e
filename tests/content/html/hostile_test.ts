/**
 * Pages shaped to cost more than their size (tests/support/hostile_pages.ts):
 * what each converts to. How long they take is measured by
 * bench/hostile_pages.ts, never here; these say the answers stayed right
 * when the paths that were quadratic became linear (a paragraph's text kept
 * as appended pieces, held tables kept as nested lists, the open elements
 * found through per-kind lists instead of a walk down the stack, subtree
 * totals added up in one pass).
 */
import assert from "node:assert/strict";
import { convertHtml } from "../../../lib/content/convert/html.ts";
import { htmlToMarkdown } from "../../../lib/content/html/markdown.ts";
import { MAX_DEPTH } from "../../../lib/content/html/tokenizer.ts";
import { HOSTILE_SHAPES } from "../../support/hostile_pages.ts";

const md = (html: string) => htmlToMarkdown(html, { baseUrl: "https://example.org/" }).markdown;
const shape = (name: string) => HOSTILE_SHAPES.find((s) => s.name === name)!;

/** Whether `words` occur in `text` in this order. */
function inOrder(text: string, words: string[]): boolean {
  let at = 0;
  for (const w of words) {
    const i = text.indexOf(w, at);
    if (i < 0) return false;
    at = i + w.length;
  }
  return true;
}

Deno.test("hostile: every shape converts, main content selected, without an error", () => {
  for (const s of HOSTILE_SHAPES) {
    const converted = convertHtml(s.page(60_000), "https://example.org/");
    assert.equal(typeof converted.markdown, "string", s.name);
  }
});

Deno.test("hostile: past thousands of distinct element names, the tree and its text are read alike", () => {
  // The walk makes shared copies of the first few thousand names it reads and leaves the rest as
  // read: a paragraph, a list and a table after 6,000 new names (and their end tags) convert as
  // they do alone, and every one of the new elements keeps its text.
  const tail = "<p>Closing <b>words</b></p><ul><li>one<li>two</ul>" +
    "<table><tr><th>h</th><th>i</th></tr><tr><td>a</td><td>b</td></tr></table>" +
    "<p>a<p>b</p><dl><dt>term<dd>meaning</dl>";
  const names = shape("distinct_names").page(200_000);
  const count = names.split("</x").length - 1;
  assert.ok(count > 6_000, `${count} names`);
  const out = md(names.replace("</body></html>", tail));
  assert.ok(out.endsWith(md(tail)), out.slice(-300));
  assert.ok(inOrder(out, ["w0", "w1", "w5000", `w${count - 1}`, "Closing **words**"]));
});

Deno.test("hostile: a table of 250,000 rows converts (its width is not spread into arguments)", () => {
  // Math.max(...rows) over 200,000 rows or more threw 'Maximum call stack size exceeded'.
  const rows = 250_000;
  const out = md(`<table>${"<tr><td>r</td><td>b</td></tr>".repeat(rows)}</table>`);
  assert.equal(out.match(/^\| r +\| b +\|$/gm)?.length, rows);
});

Deno.test("hostile: a paragraph of links keeps every link, spaced, in order", () => {
  const out = md(shape("links").page(100_000));
  const links = out.match(/\[link \d+\]\(https:\/\/example\.org\/l\d+\)/g)!;
  assert.ok(links.length > 3000);
  assert.equal(links[0], "[link 0](https://example.org/l0)");
  assert.equal(
    links.at(-1),
    `[link ${links.length - 1}](https://example.org/l${links.length - 1})`,
  );
  assert.ok(out.startsWith("[link 0](https://example.org/l0) [link 1](https://example.org/l1) "));
});

Deno.test("hostile: line breaks in a long paragraph drop the spaces before them", () => {
  const html = "<p>" + Array.from({ length: 5000 }, (_, i) => `w${i} <b>x</b> <br>`).join("") +
    "</p>";
  const lines = md(html).split("\n");
  assert.equal(lines.length, 5000);
  assert.equal(lines[0], "w0 **x**");
  assert.equal(lines[4999], "w4999 **x**");
});

Deno.test("hostile: entities decode to their characters, once each", () => {
  assert.match(md(shape("entities").page(40_000)), /^<{9000,}$/);
  assert.equal(md("<p>" + "&lt;".repeat(10_000) + "</p>"), "<".repeat(10_000));
});

Deno.test("hostile: tables nested without end keep their text in order", () => {
  const out = md(shape("nested_tables").page(60_000));
  const count = (out.match(/t\d+/g) ?? []).length;
  assert.ok(count > 2000);
  assert.ok(inOrder(out, Array.from({ length: count }, (_, i) => `t${i}`)));
});

Deno.test("hostile: text a nested table moves out comes before the outer table", () => {
  // Foster parenting, nested: each table's stray text goes before that table.
  const html = "<table><tr><td>a<table>x<tr><td>b<table>y<tr><td>c</td></tr></table></td></tr>" +
    "</table></td></tr></table>";
  const out = md(html);
  assert.ok(inOrder(out, ["a", "x", "b", "y", "c"]), out);
});

Deno.test("hostile: end tags under thousands of open elements close what the tree rules close", () => {
  const deep = (n: number) => "<span>".repeat(n);
  // An end tag of an element not open, or blocked by a special element, changes nothing.
  assert.equal(md(`<p>${deep(5000)}a</q></li></b>b</p>`), "ab");
  // A block inside a formatting element keeps it open (a stand-in for the adoption agency).
  assert.equal(md(`<b><q><div>${deep(5000)}a</b></q>b</div>c`), "**abc**");
  // A formatting element closes with everything inside it.
  assert.equal(md(`<p><i>${deep(5000)}a</i>b</p>`), "*a*b");
  // A list item closes its item only when no list is open inside it.
  assert.equal(md(`<ul><li>a${deep(3000)}<ol><li>b</li></li>c</ol></ul>`), "- a\n  1. b\n\n  c");
});

Deno.test("hostile: past the nesting cap, elements are flattened and their text kept", () => {
  const html = "<div>".repeat(MAX_DEPTH + 50) + "<li>deep<td>er<dd>est";
  const out = md(html);
  assert.ok(out.includes("deep") && out.includes("er") && out.includes("est"), out.slice(-80));
});

Deno.test("hostile: SVG nested thousands deep drops its end tags and leaves HTML after it", () => {
  const html = "<p>before</p><svg>" + "<g>".repeat(5000) + "</zz>".repeat(1000) +
    "</svg><p>after</p>";
  assert.equal(md(html), "before\n\nafter");
});

Deno.test("hostile: links holding blocks under deep inline nesting keep their text", () => {
  const out = md(shape("deep_links").page(80_000));
  assert.ok(out.includes("d"));
  assert.ok((out.match(/\bt\b/g) ?? []).length > 500);
});

Deno.test("hostile: the main-content choice is the same on a page nested ten thousand deep", () => {
  const page = "<!doctype html><title>Deep</title><body><nav><a href='/a'>Home</a> " +
    "<a href='/b'>About</a></nav>" + "<div>".repeat(9000) +
    "<p>The article's first sentence is long enough to count as prose here.</p>" +
    "<p>Its second sentence is also long enough to weigh for the article box.</p>";
  const { markdown } = convertHtml(page, "https://example.org/");
  assert.ok(markdown.includes("first sentence") && markdown.includes("second sentence"));
  assert.ok(!markdown.includes("About"), markdown);
});
