/**
 * HTML to Markdown: each construct, the furniture policy, anchors, and the
 * test page in fixtures/pages.
 */
import assert from "node:assert/strict";
import { defaultFurniture } from "../../../lib/content/extract/furniture.ts";
import { htmlToMarkdown } from "../../../lib/content/html/markdown.ts";
import { htmlDocument } from "../../../lib/content/pipeline.ts";
import { ROOT_DIR } from "../../support/process.ts";

const md = (html: string, baseUrl = "https://example.org/dir/page") =>
  htmlToMarkdown(html, { baseUrl }).markdown;

Deno.test("html: headings, paragraphs, emphasis, inline code, links, images", () => {
  assert.equal(
    md("<h2>Title</h2><p>Hello <b>bold</b> and <i>it</i>.</p>"),
    "## Title\n\nHello **bold** and *it*.",
  );
  assert.equal(md("<p>Use <code>a`b</code> now</p>"), "Use ``a`b`` now");
  assert.equal(
    md(
      '<p><a href="../x?y=1">rel</a> <a href="#frag">here</a> <a href="javascript:x()">js</a></p>',
    ),
    "[rel](https://example.org/x?y=1) [here](#frag) js",
  );
  assert.equal(
    md('<p><a href="/a"><img src="i.png" alt="Logo"></a> <img alt=""></p>'),
    "[Image: Logo]",
  );
  assert.equal(md("<p>a <a href='/x'></a> b</p>"), "a b", "empty permalink anchors vanish");
  assert.equal(md("<p>x<br>y</p>"), "x\ny");
  assert.equal(md("<p><del>old</del> new</p>"), "~~old~~ new");
});

Deno.test("html: a link inside inline code becomes a linked code span, never literal brackets", () => {
  // Specs write <code><a>name</a></code>: Markdown cannot link inside a code span.
  assert.equal(
    md('<p>Use <code><a href="#dom-x">sessionStorage</a></code> here.</p>'),
    "Use [`sessionStorage`](#dom-x) here.",
  );
  assert.equal(
    md('<p><code>a.<a href="/b">b</a>()</code> and <a href="/c"><code>c</code></a></p>'),
    "`a.b()` and [`c`](https://example.org/c)",
    "a link that is only part of the code keeps its text; a link around code stays as it was",
  );
  // The destination is written as for any other link.
  const plain = md('<p><a href="/x(1) y">f</a></p>');
  assert.equal(md('<p><code><a href="/x(1) y">f</a></code></p>'), plain.replace("[f]", "[`f`]"));
});

Deno.test("html: text that looks like Markdown structure is escaped", () => {
  assert.equal(md("<p># not a heading</p>"), "\\# not a heading");
  assert.equal(md("<p>1. not a list</p>"), "1\\. not a list");
  assert.equal(md("<p>- not a list</p>"), "\\- not a list");
  assert.equal(md("<p>> not a quote</p>"), "\\> not a quote");
  assert.equal(md("<p>```not a fence</p>"), "\\```not a fence");
});

Deno.test("html: lists, nesting, start numbers, task boxes", () => {
  assert.equal(
    md('<p>Intro</p><ol start="3"><li>three<ul><li>sub</li></ul></li><li>four</li></ol>'),
    "Intro\n\n3. three\n   - sub\n4. four",
  );
  assert.equal(
    md("<ul><li><input type=checkbox checked> done</li><li><input type=checkbox> todo</li></ul>"),
    "- [x] done\n- [ ] todo",
  );
  assert.equal(md("<ul><li>a<li>b</ul>"), "- a\n- b", "implied end tags");
});

Deno.test("html: code blocks keep whitespace and their language", () => {
  assert.equal(
    md(
      '<pre><code class="language-rust">fn main() {\n    println!("&lt;hi&gt;");\n}\n</code></pre>',
    ),
    '```rust\nfn main() {\n    println!("<hi>");\n}\n```',
  );
  assert.equal(
    md('<div class="highlight-python"><pre>x = 1\n# c</pre></div>'),
    "```python\nx = 1\n# c\n```",
  );
  assert.equal(
    md("<pre>a ``` b</pre>"),
    "````\na ``` b\n````",
    "a fence longer than any run inside",
  );
});

Deno.test("html: GFM tables escape pipes and keep line breaks in cells", () => {
  assert.equal(
    md(
      "<table><tr><th>A</th><th>B|C</th></tr><tr><td>1</td><td>x<br>y</td></tr><tr><td colspan=2>wide</td></tr></table>",
    ),
    "| A | B\\|C |\n| --- | --- |\n| 1 | x<br>y |\n|  | wide |",
  );
  assert.equal(
    md("<table><tr><td>only cell</td></tr></table>"),
    "only cell",
    "layout tables become text",
  );
  assert.equal(
    md(
      "<table><tr><th>outer</th><th>x</th></tr><tr><td><table><tr><td>in1</td><td>in2</td></tr></table></td><td>y</td></tr></table>",
    ),
    "outer\n\nx\n\nin1\n\nin2\n\ny",
    "a table whose cells hold tables lays out a page: it is read as blocks",
  );
});

Deno.test("html: quotes, definition lists, rules", () => {
  assert.equal(md("<blockquote><p>a</p><p>b</p></blockquote>"), "> a\n>\n> b");
  assert.equal(md("<dl><dt>Term</dt><dd>Def</dd></dl>"), "**Term**\n\nDef");
  assert.equal(md("<p>a</p><hr><p>b</p>"), "a\n\n* * *\n\nb");
});

Deno.test("html: headings are repaired", () => {
  assert.equal(md('<a href="/x"><h2>Linked heading</h2></a><p>t</p>'), "## Linked heading\n\nt");
  assert.equal(md("<h3>Split <div>heading</div> <p>parts</p></h3>"), "### Split heading parts");
  assert.equal(md("<ul><li><h4>In a list</h4><p>body</p></li></ul>"), "#### In a list\n\n- body");
  assert.equal(md('<h2>Title <a class="self-link" href="#t">¶</a></h2>'), "## Title");
  assert.equal(
    md("<section><h1>A</h1><section><h1>B</h1><section><h1>C</h1></section></section></section>"),
    "# A\n\n## B\n\n### C",
    "h1 in nested sections takes its depth",
  );
  assert.equal(md("<h2></h2><p>x</p>"), "x", "empty headings are dropped");
});

Deno.test("html: scripts, styles, templates and hidden elements are dropped", () => {
  const out = md(
    '<p>keep</p><script>bad()</script><style>.x{}</style><template><p>tpl</p></template><p hidden>h</p><p aria-hidden="true">a</p><p style="visibility:hidden">v</p><noscript>Enable JavaScript</noscript><svg><title>t</title><path/></svg><p>end</p>',
  );
  assert.equal(out, "keep\n\nend");
});

Deno.test("html: every element id maps to its place in the Markdown", () => {
  const result = htmlToMarkdown(
    '<p id="p1">one</p><h2 id="h">Head <span id="in-heading">x</span></h2><p>a <dfn id="d">term</dfn></p>',
  );
  const text = result.markdown;
  assert.equal(text.slice(result.anchors.get("h")!).split("\n")[0], "## Head x");
  assert.equal(result.anchors.get("in-heading"), result.anchors.get("h"));
  assert.ok(result.anchors.get("d")! > result.anchors.get("h")!);
  assert.equal(result.anchors.get("p1"), 0);
});

Deno.test("html: title, canonical URL, description, language", () => {
  const r = htmlToMarkdown(
    '<html lang="de"><head><title> Seite \n Titel </title><link rel="canonical" href="/c"><meta name="description" content="D"></head><body><p>x</p></body></html>',
    { baseUrl: "https://example.org/a/b" },
  );
  assert.equal(r.title, "Seite Titel");
  assert.equal(r.canonicalUrl, "https://example.org/c");
  assert.equal(r.description, "D");
  assert.equal(r.lang, "de");
  assert.equal(htmlToMarkdown('<meta property="og:title" content="OG"><h1>H</h1>').title, "OG");
  assert.equal(htmlToMarkdown("<h1>First heading</h1>").title, "First heading");
});

Deno.test("html: furniture outside the article goes, furniture inside it stays", () => {
  const html = `<header>Site header</header><nav>Menu</nav><aside>Sidebar</aside>
    <div class="cookie-consent">Accept cookies</div><a class="skip-link" href="#m">Skip</a>
    <main><article><header>Byline</header><h1>Story</h1><p>Body</p><aside>Pull quote</aside><nav>In-page nav</nav>
    <footer>Article footer</footer></article></main><footer>Site footer</footer>`;
  const kept = htmlToMarkdown(html, { furniture: defaultFurniture });
  assert.equal(kept.markdown, "Byline\n\n# Story\n\nBody\n\nPull quote\n\nArticle footer");
  assert.ok(kept.droppedChars > 0);
  const all = htmlToMarkdown(html).markdown;
  for (const word of ["Site header", "Menu", "Sidebar", "Site footer"]) {
    assert.ok(all.includes(word), word);
  }
});

Deno.test("html: the test page converts to clean Markdown", async () => {
  const html = await Deno.readTextFile(`${ROOT_DIR}/fixtures/pages/guide.html`);
  const doc = htmlDocument(html, "https://widgets.example/guide");
  const text = doc.markdown;
  for (
    const absent of [
      "cookies",
      "Shop",
      "Related",
      "Privacy",
      "not a heading</h2>",
      "must not appear",
      "tracking",
    ]
  ) {
    assert.ok(!text.includes(absent), `furniture or hidden text leaked: ${absent}`);
  }
  assert.ok(text.startsWith("# Widget Field Guide\n\nThis guide explains"), text.slice(0, 80));
  assert.deepEqual(doc.sections.map((s) => [s.level, s.title]), [
    [1, "Widget Field Guide"],
    [2, "Choosing a widget"],
    [3, "Sizes"],
    [2, "Fitting a widget"],
    [3, "Care"],
    [2, "Frequently asked"],
  ]);
  assert.equal(doc.title, "Widget Field Guide");
  assert.equal(doc.canonicalUrl, "https://widgets.example/guide");
  assert.ok(text.includes("| M | 20 | bikes<br>and carts |"));
  assert.ok(
    text.includes(
      "```python\ndef fit(widget):\n    # a comment, not a heading\n    return widget.size > 0\n```",
    ),
  );
  assert.ok(text.includes("[catalog](https://widgets.example/catalog?page=2)"));
  assert.equal(doc.sectionOfAnchor("dfn-widget"), 1, "an id inside a section resolves to it");
  assert.equal(doc.sections[3].id, "fitting");
  assert.ok(doc.droppedShare > 0 && doc.droppedShare < 0.5);
});
