/**
 * Main-content extraction on pages of every kind: an article loses its
 * furniture; documentation, a thread, a README, a data table and a code view
 * keep every section, table and code sample; the three real pages (PEP 8,
 * ECMA-262, WHATWG HTML, from the shared captures) keep every section of
 * their bodies. Each page is converted twice, with and without extraction,
 * and the two are compared.
 */
import assert from "node:assert/strict";
import type { Document } from "../../../lib/content/document/document.ts";
import { defaultFurniture } from "../../../lib/content/extract/furniture.ts";
import { htmlDocument } from "../../../lib/content/pipeline.ts";
import { ROOT_DIR } from "../../support/process.ts";
import { realPageHtml, sharedDir } from "../../support/shared.ts";

const SHARED = sharedDir();
const skip = SHARED ? "" : " — SKIPPED: set PARKOUR_SHARED_DIR";

interface Pair {
  selected: Document;
  full: Document;
}

function convert(html: string, url: string): Pair {
  return {
    selected: htmlDocument(html, url),
    full: htmlDocument(html, url, { fullPage: true }),
  };
}

async function fixture(name: string): Promise<Pair> {
  const html = await Deno.readTextFile(`${ROOT_DIR}/fixtures/pages/${name}.html`);
  return convert(html, `https://pages.example/${name}`);
}

const titles = (doc: Document) => doc.sections.map((s) => s.title);

/** Sections of the whole page that extraction dropped. */
function lostSections(pair: Pair): string[] {
  const kept = new Set(titles(pair.selected));
  return titles(pair.full).filter((t) => !kept.has(t));
}

function includesAll(doc: Document, texts: string[]) {
  for (const t of texts) assert.ok(doc.markdown.includes(t), `kept: ${t}`);
}

function includesNone(doc: Document, texts: string[]) {
  for (const t of texts) assert.ok(!doc.markdown.includes(t), `dropped: ${t}`);
}

Deno.test("extraction: a news article loses menus, teasers, comments, sidebar and captions", async () => {
  const pair = await fixture("news_article");
  const { selected, full } = pair;
  includesAll(selected, [
    "The harbour bridge reopened to traffic on Monday morning",
    "## What changes for commuters",
    "Cyclists get a separated lane",
    "## Cost questions remain",
    "published in June, together with the maintenance plan",
  ]);
  includesNone(selected, [
    "We use cookies",
    "Sport",
    "Share on Facebook",
    "School roof fixed",
    "Pupils return to classrooms",
    "12 comments",
    "About time!",
    "Most read",
    "morning briefing",
    "All rights reserved",
    "Ferry shuttle to end",
    "Commuters crossed the bridge at dawn",
  ]);
  // The whole page still has all of it, and the share left out is measured.
  includesAll(full, ["School roof fixed", "About time!", "Most read", "All rights reserved"]);
  assert.deepEqual(lostSections(pair), [
    "Harbour bridge reopens after two-year repair",
    "More from News",
    "School roof fixed before winter storms arrive",
    "Market hall traders vote to extend opening hours",
    "Lighthouse keeper's cottage opens as a museum",
    "Tram extension plans go out to consultation",
    "12 comments",
    "Most read",
  ]);
  assert.ok(selected.droppedShare > 0.3 && selected.droppedShare < 0.9, `${selected.droppedShare}`);
  assert.equal(full.droppedShare, 0);
  assert.equal(selected.title, "Harbour bridge reopens after two-year repair | The Coastal Times");
});

Deno.test("extraction: documentation keeps every section, its table, tabbed code and note", async () => {
  const pair = await fixture("docs_page");
  const { selected } = pair;
  // Sections named like furniture ("Comments", "Related settings", "Footer
  // options") are topics here: their ids repeat their headings.
  assert.deepEqual(lostSections(pair), []);
  assert.deepEqual(titles(selected), [
    "Configuration reference",
    "Server options",
    "Examples",
    "Comments",
    "Related settings",
    "Footer options",
  ]);
  includesAll(selected, [
    "| `workers` | integer | 4 | request worker threads |",
    "```toml\n[server]\nport = 9090\nworkers = 8\n```",
    "```sh\nWIDGETD_SERVER_PORT=9090",
    "send SIGHUP or run `widgetd reload`",
    "Lines starting with `#` are comments",
  ]);
  includesNone(selected, ["Quick start", "On this page", "Edit on GitHub", "© Copyright 2026"]);
});

Deno.test("extraction: a thread whose every post is marked 'comment' keeps every post", async () => {
  const pair = await fixture("forum_thread");
  assert.deepEqual(lostSections(pair), []);
  includesAll(pair.selected, [
    "When I send SIGHUP to widgetd 3.2",
    'drain_timeout = "30s"',
    "Queued requests that have not started",
    "That fixed it, thank you.",
  ]);
  includesNone(pair.selected, ["Terms of service", "Log in"]);
});

Deno.test("extraction: a README keeps its sections, code and table; the repository chrome goes", async () => {
  const pair = await fixture("readme_page");
  const { selected } = pair;
  assert.deepEqual(titles(selected), [
    "tinyqueue",
    "Install",
    "Usage",
    "Options",
    "Related projects",
    "License",
  ]);
  assert.deepEqual(lostSections(pair), ["README.md", "About", "Releases 9", "Languages"]);
  includesAll(selected, [
    "```sh\nnpm install tinyqueue\n```",
    'const q = await open("./jobs.log");',
    "| `retries` | `3` | attempts before a job moves to the dead-letter file |",
    "[bigqueue](https://example.org/bigqueue), the same idea sharded across files",
    "MIT, see the LICENSE file.",
  ]);
  includesNone(selected, ["Fix compaction race", "Sign up", "Pull requests", "TypeScript 97.1%"]);
});

Deno.test("extraction: a data table and a code view are kept whole", async () => {
  const table = await fixture("data_table");
  assert.deepEqual(titles(table.selected), ["Port Halden tide times"]);
  for (const day of ["1 Mar", "2 Mar", "3 Mar", "4 Mar", "5 Mar"]) {
    assert.match(table.selected.markdown, new RegExp(`\\| ${day} \\| \\d\\d:\\d\\d \\|`));
  }
  includesNone(table.selected, ["Nearby stations", "West Cove"]);
  const code = await fixture("code_page");
  const fullCode = /```ts\n[\s\S]*?\n```/.exec(code.full.markdown)![0];
  assert.ok(code.selected.markdown.includes(fullCode), "the code block survives whole");
  assert.match(fullCode, /delay \*= 2;/);
  includesNone(code.selected, ["Explore", "Status"]);
});

Deno.test("extraction: an article's last paragraphs outside its body box are kept", () => {
  const para = (i: number) =>
    `<p>Paragraph ${i} of the story, long enough to read as prose, with a few more words about the harbour and the tides.</p>`;
  const html = `<html><body>
    <nav><a href="/">Home</a> <a href="/news">News</a></nav>
    <div class="story-wrap">
      <div class="story-text">${Array.from({ length: 12 }, (_, i) => para(i + 1)).join("")}</div>
      <div class="ad-slot"></div>
      <p>Closing line one, after the advertisement slot.</p>
      <p>Closing line two, the very end of the story.</p>
      <div class="related"><h3>Related</h3><ul><li><a href="/x">Another story</a></li></ul></div>
    </div>
    <footer>Copyright notice of the newspaper, all rights reserved.</footer>
  </body></html>`;
  const { selected } = convert(html, "https://pages.example/split");
  includesAll(selected, [
    "Paragraph 1 of the story",
    "Paragraph 12 of the story",
    "Closing line one, after the advertisement slot.",
    "Closing line two, the very end of the story.",
  ]);
  includesNone(selected, ["Another story", "Copyright notice", "News"]);
});

Deno.test("extraction: browser-support boxes beside a definition go, its text stays", () => {
  const html = `<html><body><main><h2>The widget element</h2>
    <div class="mdn-anno wrapped"><button class="mdn-anno-btn"><span>MDN</span></button>
      <div class="feature"><p><a href="https://developer.mozilla.org/x">Element/widget</a></p>
      <p class="all-engines-text">Support in all current engines.</p>
      <div class="support"><span class="firefox yes"><span>Firefox</span><span>8+</span></span>
      <span class="safari yes"><span>Safari</span><span>6+</span></span></div></div></div>
    <details class="caniuse-status"><summary>CanIUse</summary><p>Chrome 1, Edge 12</p></details>
    <p>The widget element represents a widget. Its mdn-anno attribute is not a class.</p>
  </main></body></html>`;
  const { selected, full } = convert(html, "https://spec.example/widget");
  includesAll(selected, ["The widget element represents a widget", "mdn-anno attribute"]);
  includesNone(selected, ["Support in all current engines", "Firefox", "CanIUse", "Edge 12"]);
  includesAll(full, ["Support in all current engines", "CanIUse"]);
});

Deno.test("extraction: a page with nothing to choose between is left alone", () => {
  const html = "<html><body><h2>Broken</h2><p>Only one paragraph here.</p></body></html>";
  const { selected, full } = convert(html, "https://pages.example/tiny");
  assert.equal(selected.markdown, full.markdown);
  const empty = convert(
    "<html><body><nav><a href='/'>Home</a></nav></body></html>",
    "https://x.example/",
  );
  // Extraction never leaves an empty page when the page had text.
  assert.match(empty.selected.markdown, /Home/);
});

async function real(name: string, url: string): Promise<Pair> {
  return convert(await realPageHtml(name), url);
}

Deno.test({
  name: `extraction: PEP 8 keeps every section of its body${skip}`,
  ignore: !SHARED,
  async fn() {
    const pair = await real("pep_8", "https://peps.python.org/pep-0008/");
    // Only the site banner and the table of contents go.
    assert.deepEqual(lostSections(pair), ["Python Enhancement Proposals", "Contents"]);
    assert.ok(pair.selected.sections.length >= 40);
    assert.ok(pair.selected.markdown.length > 0.9 * pair.full.markdown.length);
  },
});

Deno.test({
  name: `extraction: ECMA-262 keeps all of its sections${skip}`,
  ignore: !SHARED,
  async fn() {
    const pair = await real("ecma262", "https://tc39.es/ecma262/");
    assert.deepEqual(lostSections(pair), []);
    assert.equal(pair.selected.sections.length, pair.full.sections.length);
    // What goes is the sidebar's table of contents and the shortcut menu.
    assert.ok(pair.selected.markdown.length > 0.9 * pair.full.markdown.length);
    assert.ok(!pair.selected.markdown.includes("Toggle shortcuts help"));
  },
});

Deno.test({
  name: `extraction: WHATWG HTML keeps every section of its body${skip}`,
  ignore: !SHARED,
  async fn() {
    const pair = await real("whatwg_html", "https://html.spec.whatwg.org/");
    // The title block above the body (logo, "HTML", "Living Standard") goes.
    assert.deepEqual(lostSections(pair), ["HTML"]);
    assert.ok(pair.selected.sections.length > 1200);
    // What goes is the title block and the 1,060 browser-support boxes (about 6 % of the text).
    assert.ok(pair.selected.markdown.length > 0.92 * pair.full.markdown.length);
    // The browser-support boxes beside definitions go (they stay with full_page).
    assert.doesNotMatch(
      pair.selected.markdown,
      /Support in all current engines|Firefox\d+\+Safari/,
    );
    assert.match(pair.full.markdown, /Support in all current engines/);
    // Sections named like furniture survive: "The nav element", "The footer element".
    for (const t of ["4.3.4 The nav element", "4.3.9 The footer element", "13.1.6 Comments"]) {
      assert.ok(titles(pair.selected).includes(t), t);
    }
  },
});

Deno.test("extraction: an id naming a term or a link in a sentence is not read as a consent banner's", async () => {
  // WHATWG HTML's links to Trusted Types ("the-setter:tt-trustedhtml") lost their words to the
  // "truste" of TrustArc's banners ("truste-consent-track"); a term or a span whose id names cookies or the GDPR is a
  // word of the sentence, not a banner, whatever its id says.
  const { selected, full } = await fixture("consent_ids");
  includesAll(selected, [
    "takes a [TrustedHTML](https://w3c.github.io/trusted-types/dist/spec/#trustedhtml) object",
    "[TrustedScript](https://w3c.github.io/trusted-types/dist/spec/#trustedscript)",
    "keeps a cookie consent record for every visitor",
    "publishes its fines under the GDPR every quarter",
    "## Consent records",
    // A heading's id that starts with "trusted" is not TrustArc's "truste".
    "## Trusted sinks",
  ]);
  // Banners named by their ids still go, whole.
  includesNone(selected, [
    "We and our partners use cookies",
    "Accept",
    "stores data such as cookies",
    "Your privacy",
    "Manage cookie preferences",
  ]);
  includesAll(full, ["We and our partners use cookies", "Manage cookie preferences"]);
});

Deno.test("extraction: a class attribute is judged alike on every element that has it, however many classes the page has", () => {
  // The furniture policy keeps the verdict of each class attribute it has tested, up to a bound:
  // a banner's class is furniture wherever it comes, before and after thousands of others have
  // been judged, and a class of the text (long enough to be a view into the page) never is.
  const context = { ordinal: 1, inMain: true, depth: 3, inline: false };
  const drops = (cls: string) => defaultFurniture.drop("div", { class: cls }, context);
  const page = `<div class="site-cookie-banner x"><p class="paragraph-of-the-article">`;
  const banner = page.slice(page.indexOf("site-"), page.indexOf('"><p'));
  const text = page.slice(page.indexOf("paragraph-"), page.lastIndexOf('"'));
  assert.equal(banner, "site-cookie-banner x");
  assert.equal(text, "paragraph-of-the-article");
  // A class too long to be kept is tested each time, with the same verdicts.
  const long = `${"x".repeat(2000)} site-cookie-banner`;
  const longText = `${"y".repeat(2000)} ${text}`;
  for (let k = 0; k < 5000; k++) {
    assert.equal(drops(`para-${k} ${text}`), false, `class ${k}`);
    if (k % 2500 === 0) {
      assert.equal(drops(long), true, `a long banner class after ${k} classes`);
      assert.equal(drops(longText), false, `a long class of the text after ${k} classes`);
    }
    if (k % 700 === 0) {
      assert.equal(drops(banner), true, `the banner after ${k} classes`);
      assert.equal(drops(text), false, `the text's class after ${k} classes`);
      assert.equal(drops(`sr-only ${k}`), true, `a screen reader's class after ${k} classes`);
    }
  }
});
