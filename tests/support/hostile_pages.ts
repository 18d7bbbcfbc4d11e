/**
 * Pages shaped to make an HTML converter work harder than their size: each
 * shape repeats one small unit (a link, an entity, an unclosed tag, ...)
 * until the page reaches the size asked. Used by the hostile-page tests and
 * by `bench/hostile_pages.ts`, which reports each shape's MB/s beside the
 * real pages'.
 *
 * @module
 */

/** One hostile shape: its name, what it is, and a page of about `bytes` bytes. */
export interface HostileShape {
  name: string;
  about: string;
  page(bytes: number): string;
}

/** Repeats `unit(i)` between `head` and `tail` until the page holds about `bytes` bytes. */
function repeated(
  bytes: number,
  unit: (i: number) => string,
  head = "<!doctype html><html><head><title>Hostile page</title></head><body>",
  tail = "</body></html>",
): string {
  const parts: string[] = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const u = unit(i);
    parts.push(u);
    size += u.length;
  }
  parts.push(tail);
  return parts.join("");
}

/** A body opened by `depth` nested spans (most of the converter's nesting cap). */
function deep(depth = 9000, inner = "", outer = ""): string {
  return "<!doctype html><title>Deep</title><body>" + outer + "<span>".repeat(depth) + inner;
}

const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];

/** The shapes, each one unit repeated. */
export const HOSTILE_SHAPES: readonly HostileShape[] = [
  {
    name: "links",
    about: "`<a href='/lN'>link N</a> ` repeated in one paragraph",
    page: (n) => repeated(n, (i) => `<a href='/l${i}'>link ${i}</a> `, undefined, "</body></html>"),
  },
  {
    name: "entities",
    about: "one paragraph of `&lt;` entities",
    page: (n) => repeated(n, () => "&lt;", "<!doctype html><title>Entities</title><p>"),
  },
  {
    name: "mixed_entities",
    about: "one paragraph of named, numeric and bare ampersands",
    page: (n) =>
      repeated(n, (i) => ["&amp;", "&#60;", "&#x3e; ", "& ", "&notit; ", "&nbsp;"][i % 6], "<p>"),
  },
  {
    name: "unclosed_p",
    about: "`<p>text N` never closed",
    page: (n) => repeated(n, (i) => `<p>paragraph ${i} `),
  },
  {
    name: "misnested",
    about: "`<b><i>text</b></i>` and unclosed formatting elements",
    page: (n) => repeated(n, (i) => `<b><i>word ${i}</b></i><u><s>x</u> `),
  },
  {
    name: "deep_nesting",
    about: "`<div>` opened and never closed, text in each",
    page: (n) => repeated(n, (i) => `<div>d${i}`),
  },
  {
    name: "deep_inline",
    about: "`<span>` opened and never closed",
    page: (n) => repeated(n, (i) => `<span>s${i} `),
  },
  {
    name: "huge_row",
    about: "one table row of many cells",
    page: (n) => repeated(n, (i) => `<td>cell ${i}</td>`, "<table><tr>", "</tr></table>"),
  },
  {
    name: "huge_cell",
    about: "one table cell of many words and line breaks",
    page: (n) =>
      repeated(
        n,
        (i) => `${WORDS[i % 8]} ${i % 17 === 0 ? "<br>" : ""}`,
        "<table><tr><td>",
        "</td></tr></table>",
      ),
  },
  {
    name: "text_run",
    about: "one paragraph of words, no tags",
    page: (n) => repeated(n, (i) => `${WORDS[i % 8]} `, "<p>"),
  },
  {
    name: "long_word",
    about: "one word without a space or tag",
    page: (n) => repeated(n, () => "abcdefghij", "<p>"),
  },
  {
    name: "tiny_sections",
    about: "`<h2>` headings, each with one short paragraph",
    page: (n) => repeated(n, (i) => `<h2>Part ${i}</h2><p>x ${i}</p>`),
  },
  {
    name: "attributes",
    about: "elements with a thousand attributes each",
    page: (n) =>
      repeated(n, (i) => {
        const attrs: string[] = [];
        for (let a = 0; a < 1000; a++) attrs.push(`a${a}="v${i}"`);
        return `<div ${attrs.join(" ")}>t${i}</div>`;
      }),
  },
  {
    name: "duplicate_attributes",
    about: "one element with the same attribute repeated",
    page: (n) => repeated(n, (i) => ` class="c${i}"`, "<div", "></div>"),
  },
  {
    name: "deep_end_tags",
    about: "end tags of elements not open, under nine thousand open spans",
    page: (n) => repeated(n, (i) => (i % 2 ? "</q>" : "</li>"), deep()),
  },
  {
    name: "deep_blocked_end_tags",
    about: "end tags of a formatting element a block above it keeps open",
    page: (n) => repeated(n, (i) => (i % 2 ? "</b>" : "</q>"), deep(9000, "", "<b><q><div>")),
  },
  {
    name: "deep_flattened",
    about: "start tags past the nesting cap",
    page: (n) => repeated(n, (i) => `<li>x${i}<td><dd>`, deep(10_000)),
  },
  {
    name: "deep_blocks",
    about: "paragraphs under nine thousand open spans",
    page: (n) => repeated(n, (i) => `<div>x${i}</div>`, deep()),
  },
  {
    name: "deep_links",
    about: "links holding blocks under nine thousand open spans",
    page: (n) => repeated(n, (i) => `<a href="/x${i}">t<div>d</div></a>`, deep()),
  },
  {
    name: "deep_svg",
    about: "end tags inside deeply nested SVG",
    page: (n) => repeated(n, () => "</zz>", deep(1, "<svg>" + "<g>".repeat(9000))),
  },
  {
    name: "list_items",
    about: "`<li>` never closed in one list",
    page: (n) => repeated(n, (i) => `<li>item ${i}`, "<ul>", "</ul>"),
  },
  {
    name: "nested_lists",
    about: "`<ul><li>` nested without end",
    page: (n) => repeated(n, (i) => `<ul><li>i${i}`),
  },
  {
    name: "table_rows",
    about: "many rows of short cells",
    page: (n) => repeated(n, (i) => `<tr><td>${i}</td><td>b</td></tr>`, "<table>", "</table>"),
  },
  {
    name: "nested_tables",
    about: "tables nested in cells without end",
    page: (n) => repeated(n, (i) => `<table><tr><td>t${i}`),
  },
  {
    name: "comments",
    about: "comments between words",
    page: (n) => repeated(n, (i) => `w${i}<!-- c -->`, "<p>"),
  },
  {
    name: "code_lines",
    about: "one `<pre>` of short lines",
    page: (n) => repeated(n, (i) => `line ${i} &lt;x&gt;\n`, "<pre><code>", "</code></pre>"),
  },
  {
    name: "headings_in_links",
    about: "links wrapping headings and block elements",
    page: (n) => repeated(n, (i) => `<a href="/h${i}"><h3>t${i}</h3><p>p</p></a>`),
  },
  {
    name: "anchors",
    about: "elements with ids",
    page: (n) => repeated(n, (i) => `<span id="id${i}">x</span> `),
  },
  {
    name: "images",
    about: "images with alt text",
    page: (n) => repeated(n, (i) => `<img src="/i${i}.png" alt="chart ${i}">`),
  },
  {
    name: "distinct_names",
    about: "elements of a new name each, with an id, closed: `<xN id=aN>w</xN>`",
    page: (n) => repeated(n, (i) => `<x${i} id="a${i}">w${i}</x${i}>\n`),
  },
];
