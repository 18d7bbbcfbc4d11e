/**
 * A large page's source is let go once the conversion's walk has read it
 * (`PageHtml`), and what the conversion keeps holds none of it: the
 * Document is the one the text gives, a page whose walk writes nothing
 * keeps its source for the conversion of the whole page, a selection that
 * keeps no text keeps everything the walk wrote, and once the conversion is
 * done a collection frees the source (measured in a process of its own).
 */
import assert from "node:assert/strict";
import { convertHtml } from "../../lib/content/convert/html.ts";
import { htmlToMarkdown } from "../../lib/content/html/markdown.ts";
import {
  COLLECT_MIN_CHARS,
  narrowed,
  PageHtml,
  widened,
} from "../../lib/content/html/page_html.ts";
import { ROOT_DIR } from "../support/process.ts";

/** A character past Latin-1. */
const PAST_LATIN1 = /[\u0100-\uffff]/;

const URL = "https://example.test/spec";

/** Sections past `chars` characters, with long ids and classes and a character past Latin-1. */
function sections(chars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const part = `<section class="a-long-section-class" id="section-number-${i}">` +
      `<h2 id="heading-number-${i}">Part ${i} ✓</h2><p>Words of part ${i} — and more.</p></section>\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

/** A page past `chars` characters, whose metadata are long enough to be views of it. */
function page(chars: number): string {
  return `<html lang="en-US-x-a-long-tag"><head><title>A long specification title</title>` +
    `<meta name="description" content="A description long enough to be a view">` +
    `<link rel="canonical" href="#a-long-canonical-fragment"></head><body><main>${
      sections(chars)
    }</main></body></html>`;
}

Deno.test("page html: a large page's source is let go after its walk, the Document the same", () => {
  const html = page(COLLECT_MIN_CHARS + 1000);
  const held = PageHtml.of(html);
  const released = convertHtml(held, URL);
  assert.equal(held.released, true);
  assert.throws(() => held.text, /let go/);
  const kept = convertHtml(html, URL);
  assert.deepEqual(released, kept);
  assert.ok(released.markdown.includes("## Part 40 ✓"));
  assert.equal(released.lang, "en-US-x-a-long-tag");
});

Deno.test("page html: a small page keeps its source", () => {
  const held = PageHtml.of(page(50_000));
  convertHtml(held, URL);
  assert.equal(held.released, false);
});

Deno.test("page html: a large page whose walk writes nothing is converted whole from its source", () => {
  // Everything sits in navigation, dropped as furniture: the walk writes nothing, so the source
  // is kept for the conversion of the whole page, which lets go of it in turn.
  const html = `<html><body><nav>${sections(COLLECT_MIN_CHARS + 1000)}</nav></body></html>`;
  const held = PageHtml.of(html);
  const converted = convertHtml(held, URL);
  assert.ok(converted.markdown.includes("Part 40 ✓"));
  assert.deepEqual(converted, convertHtml(html, URL));
  assert.equal(held.released, true);
});

Deno.test("page html: a selection keeping no text of a released page keeps everything written", () => {
  const html = page(COLLECT_MIN_CHARS + 1000);
  const none = (blocks: readonly unknown[]) => blocks.map(() => false);
  const fromHolder = htmlToMarkdown(PageHtml.of(html), { baseUrl: URL, select: none });
  assert.equal(fromHolder.deselectedChars, 0);
  assert.equal(fromHolder.markdown, htmlToMarkdown(html, { baseUrl: URL }).markdown);
  // A source still held is deselected as the selection says (and converted again by convertHtml).
  const fromText = htmlToMarkdown(html, { baseUrl: URL, select: none });
  assert.equal(fromText.markdown.trim(), "");
  assert.ok(fromText.deselectedChars > 0);
});

/**
 * Characters past Latin-1 in every place a page can hold them: text, attribute values the
 * converter reads and ones it does not, tag and attribute names, raw text, comments, CDATA,
 * character references next to them, white space JavaScript counts as such, an astral character, a
 * lone surrogate, U+0001 and the C1 characters the escapes are written with.
 */
const WIDE_PARTS = (i: number) =>
  `<section id="wide-→-${i}" class="ünï→ cls-${i % 7}"><h2 id="h→${i}">Part ${i} → ✓ 😀</h2>` +
  `<p title="t→" data-x="y">Arrows → and ⇒, CJK 漢字, em\u2003space, ideographic\u3000space, ` +
  `&amp→ &#65→ &not→ &notin; \u0001 and \u0090\u009f, a lone \ud800 surrogate.</p>` +
  `<p><a href="/wiki/Ω-${i}" title="Ω">Ωmega link</a> <img alt="Ω → image 😀" src="x.png"> ` +
  `<x-→ data-→="v">custom → element</x-→> <code>f(→)</code></p>` +
  `<pre><code class="language-js">const s = "→ ✓";</code></pre>` +
  `<table><tr><th>→</th><td>✓ 😀</td></tr></table>` +
  `<xmp>raw → text</xmp><!-- a comment → --><svg><![CDATA[ → ]]></svg>` +
  `<nav><script>var s = "→ 😀";</script><style>.a::after { content: "→"; }</style>nav →</nav>` +
  `<textarea>text → area</textarea><ul><li>item →</li><li>ítem ✓</li></ul></section>\n`;

function widePage(chars: number): string {
  const parts: string[] = [];
  for (let i = 0, length = 0; length < chars; i++) {
    parts.push(WIDE_PARTS(i));
    length += parts[i].length;
  }
  return `<html lang="en-→"><head><title>A → title ✓</title>` +
    `<meta name="description" content="Description → ✓"></head><body><main>${
      parts.join("")
    }</main></body></html>`;
}

Deno.test("page html: a large page narrowed for its walk converts as the page itself does", () => {
  const bytes = new TextEncoder().encode(widePage(COLLECT_MIN_CHARS + 1000));
  // The page as decoded (its lone surrogate became U+FFFD on the way to bytes).
  const html = new TextDecoder().decode(bytes);
  const narrow = PageHtml.decode(bytes, "utf-8");
  assert.equal(narrow.narrow, true);
  assert.equal(narrow.length, html.length);
  assert.ok(narrow.text.length > html.length);
  assert.deepEqual(convertHtml(narrow, URL), convertHtml(html, URL));
  const whole = PageHtml.decode(bytes, "utf-8");
  assert.deepEqual(
    convertHtml(whole, URL, { fullPage: true }),
    convertHtml(html, URL, { fullPage: true }),
  );
  // A small page, or one all Latin-1, is left as decoded.
  assert.equal(PageHtml.decode(new TextEncoder().encode(widePage(5_000)), "utf-8").narrow, false);
  const latin1 = sections(COLLECT_MIN_CHARS + 1000).replace(
    new RegExp(PAST_LATIN1.source, "g"),
    "-",
  );
  assert.equal(PageHtml.decode(new TextEncoder().encode(latin1), "utf-8").narrow, false);
});

Deno.test("page html: narrowing and widening give back every string", () => {
  const samples = [
    "",
    "plain",
    "→",
    "a→b✓c",
    "😀",
    "x😀y",
    "\u0001",
    "\u0001\u0090\u009f",
    "\ud800",
    "a\udc00b",
    "\uffff\u0100\u00ff",
    "→".repeat(50),
  ];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 0; n < 300; n++) {
    let s = "";
    for (let k = 0; k < 20; k++) {
      const r = random();
      s += r < 0.5
        ? String.fromCharCode(Math.floor(random() * 256))
        : r < 0.9
        ? String.fromCharCode(Math.floor(random() * 65536))
        : String.fromCodePoint(0x10000 + Math.floor(random() * 0xfffff));
    }
    samples.push(s);
  }
  for (const s of samples) {
    const narrow = narrowed(s);
    if (narrow === undefined) {
      assert.ok(!PAST_LATIN1.test(s));
      continue;
    }
    assert.ok(!PAST_LATIN1.test(narrow), "narrowed to Latin-1");
    assert.equal(widened(narrow), s);
  }
});

Deno.test("page html: UTF-8 bytes narrowed as they are decoded give what narrowing the text gives", () => {
  // A large page of ASCII with the bytes of one case in the middle (and at its end): the text a
  // holder gets must be the decoded text narrowed, byte order marks and bad bytes included.
  const filler = new TextEncoder().encode("<p>words</p>\n".repeat(COLLECT_MIN_CHARS / 13 + 10));
  const cases: [string, number[]][] = [
    ["Latin-1 only", [0xc3, 0xa9, 0xc2, 0xa0]],
    ["U+0100", [0xc4, 0x80]],
    ["U+07FF", [0xdf, 0xbf]],
    ["U+0800", [0xe0, 0xa0, 0x80]],
    ["U+D7FF and U+E000", [0xed, 0x9f, 0xbf, 0xee, 0x80, 0x80]],
    ["U+FEFF inside", [0xef, 0xbb, 0xbf]],
    ["U+FFFF", [0xef, 0xbf, 0xbf]],
    ["U+10000 and U+10FFFF", [0xf0, 0x90, 0x80, 0x80, 0xf4, 0x8f, 0xbf, 0xbf]],
    ["U+0001 and a wide one", [0x01, 0xe2, 0x86, 0x92, 0x01]],
    ["U+0001 alone", [0x01]],
    // U+0001 inside runs of ASCII, which are read four bytes at a time, at every alignment.
    ["U+0001 among ASCII after a wide one", [0xe2, 0x86, 0x92, ...Array(9).fill(0x61), 0x01, 0x61]],
    ["U+0001 among ASCII, one later", [0xe2, 0x86, 0x92, ...Array(10).fill(0x61), 0x01, 0x61]],
    ["U+0001 among ASCII, two later", [0xe2, 0x86, 0x92, ...Array(11).fill(0x61), 0x01, 0x61]],
    ["U+0001 among ASCII, three later", [0xe2, 0x86, 0x92, ...Array(12).fill(0x61), 0x01, 0x61]],
    ["U+0090-U+009F", [0xc2, 0x90, 0xc2, 0x9f, 0xe2, 0x86, 0x92]],
    ["a lone continuation", [0x80, 0xe2, 0x86, 0x92]],
    ["an overlong two-byte form", [0xc0, 0x80]],
    ["an overlong three-byte form", [0xe0, 0x80, 0x80]],
    ["an overlong four-byte form", [0xf0, 0x80, 0x80, 0x80]],
    ["a surrogate", [0xed, 0xa0, 0x80]],
    ["past U+10FFFF", [0xf4, 0x90, 0x80, 0x80, 0xf5, 0x80]],
    ["a cut sequence", [0xe2, 0x86, 0x3c]],
  ];
  const decoder = new TextDecoder();
  const expect = (bytes: Uint8Array, what: string) => {
    const text = decoder.decode(bytes);
    const narrow = narrowed(text);
    const page = PageHtml.decode(bytes, "utf-8");
    assert.equal(page.narrow, narrow !== undefined, what);
    assert.equal(page.length, text.length, what);
    assert.ok(page.text === (narrow ?? text), what);
  };
  for (const [what, middle] of cases) {
    const tail = new TextEncoder().encode("<p>end</p>");
    const bytes = new Uint8Array(filler.length + middle.length + tail.length);
    bytes.set(filler);
    bytes.set(middle, filler.length);
    bytes.set(tail, filler.length + middle.length);
    expect(bytes, what);
    // At the very end, where a sequence may be cut short.
    for (let cut = 1; cut <= middle.length; cut++) {
      const end = new Uint8Array(filler.length + cut);
      end.set(filler);
      end.set(middle.slice(0, cut), filler.length);
      expect(end, `${what}, its first ${cut} bytes at the end`);
    }
    // After a byte order mark, which decoding drops, and after two.
    for (const marks of [1, 2]) {
      const bom = new Uint8Array(3 * marks + middle.length + filler.length);
      for (let m = 0; m < marks; m++) bom.set([0xef, 0xbb, 0xbf], 3 * m);
      bom.set(middle, 3 * marks);
      bom.set(filler, 3 * marks + middle.length);
      expect(bom, `${what} after ${marks} byte order mark(s)`);
    }
  }
  // Only a page narrowed after decoding leaves a copy at two bytes a character behind (which the
  // conversion collects before its walk).
  const page = (middle: number[]) => {
    const bytes = new Uint8Array(filler.length + middle.length);
    bytes.set(filler);
    bytes.set(middle, filler.length);
    return PageHtml.decode(bytes, "utf-8");
  };
  assert.equal(page([0xe2, 0x86, 0x92]).leftWide, false);
  assert.equal(page([0x80, 0xe2, 0x86, 0x92]).leftWide, true);
  assert.equal(page([0x80, 0xe2, 0x86, 0x92]).narrow, true);
});

Deno.test("page html: UTF-8 bytes of a large size but fewer characters are not narrowed", () => {
  // Three bytes a character: past the size in bytes, under it in characters, as decoding and
  // then narrowing would leave it.
  const text = "<p>" + "漢".repeat(COLLECT_MIN_CHARS / 2) + "</p>";
  const bytes = new TextEncoder().encode(text);
  assert.ok(bytes.length >= COLLECT_MIN_CHARS && text.length < COLLECT_MIN_CHARS);
  const page = PageHtml.decode(bytes, "utf-8");
  assert.equal(page.narrow, false);
  assert.equal(page.length, text.length);
  assert.ok(page.text === text);
});

// Run in a process of its own with the collector exposed: the heap as the selection starts (after
// the walk, where a large page's source is let go and its garbage collected), once with the source
// in a holder and once held by the caller too (which shows that the figure can tell).
const PROBE = `
import { htmlToMarkdown } from "${ROOT_DIR}/lib/content/html/markdown.ts";
import { PageHtml } from "${ROOT_DIR}/lib/content/html/page_html.ts";
// Built anew each time, so that nothing of it outlives a figure but what a conversion keeps; as
// bytes decoded, as a page read is (a string built by concatenation is cut differently).
const text = () => {
  const parts = [];
  for (let i = 0; i < 120000; i++) {
    parts.push('<div class="a-long-class-name-' + (i % 50) + '" id="element-id-' + i +
      '"><span class="another-long-class">w</span></div>');
  }
  return '<html lang="en-US-x-a-long-tag"><head><title>A long page title here</title>' +
    '</head><body><main><h1>Title ✓</h1>' + parts.join("") + '</main></body></html>';
};
const bytes = () => new TextEncoder().encode(text());
const decoded = () => new TextDecoder().decode(bytes());
const heap = () => { globalThis.gc(); globalThis.gc(); return Deno.memoryUsage().heapUsed; };
const source = text().length * 2;
const before = heap();
let atSelection = 0;
const options = { baseUrl: "https://example.test/", select: () => { atSelection = heap() - before; } };
const released = htmlToMarkdown(PageHtml.decode(bytes(), "utf-8"), options).markdown;
const releasedAt = atSelection;
const html = decoded();
const held = htmlToMarkdown(html, options).markdown;
console.log(JSON.stringify({ source, releasedAt, heldAt: atSelection, same: released === held }));
`;

Deno.test("page html: from its selection on, nothing the conversion holds keeps the source", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", PROBE],
    cwd: ROOT_DIR,
    stderr: "inherit",
  }).output();
  assert.ok(out.success, "the probe process failed");
  const r = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
  assert.ok(r.same);
  // The same conversion with the source held by its caller too holds the source more.
  assert.ok(r.heldAt > r.source, `held: ${r.heldAt} bytes, source ${r.source}`);
  assert.ok(
    r.heldAt - r.releasedAt > r.source / 2,
    `released: ${r.releasedAt} bytes, held: ${r.heldAt}, source ${r.source}`,
  );
});
