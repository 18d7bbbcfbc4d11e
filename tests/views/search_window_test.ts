/**
 * A search hit is never cut out of its own slice: when the best slice is
 * longer than the budget, the search view shows a window of it centred on
 * where the query matches, marks each cut edge with the question view's
 * elision marker, and says so (`truncated`, a note naming the slice and how
 * to read it whole). Through the CLI on the guide (the case) and
 * through the tool handler the CLI and MCP call on the budget pages, one per
 * script, at budgets down to the smallest allowed.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "../support/process.ts";
import { countTokens } from "../../lib/content/tokens/count.ts";
import { ELISION } from "../../lib/content/question/extract.ts";
import { ELISION as WINDOW_ELISION } from "../../lib/content/document/window.ts";
import { readFileDocument } from "../../lib/sources/file/mod.ts";
import { runIncisive } from "../../lib/tools/web_fetch_incisive.ts";
import { toolContext, ToolRegistry } from "../../lib/tools/registry.ts";
import { TOOLS } from "../../lib/tools/catalog.ts";
import { envelopeReady, parseFrontmatter } from "../../lib/envelope/frontmatter.ts";
import { parseFences } from "../../lib/envelope/fence.ts";
import type { Document } from "../../lib/content/document/document.ts";

const GUIDE = `${ROOT_DIR}/fixtures/pages/guide.html`;
const cli = (args: string[]) =>
  runCli(args, {}, MAIN, [`--allow-read=${ROOT_DIR}/fixtures`]).then((r) => {
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { frontmatter: Record<string, unknown>; content: string[] };
  });

Deno.test("search window: the marker is the question view's", () => {
  assert.equal(WINDOW_ELISION, ELISION);
});

Deno.test("cli: fetch --search torque --max-tokens 200 shows the hit, centred, its cuts marked", async () => {
  const out = await cli([
    "fetch",
    GUIDE,
    "--search",
    "torque",
    "--max-tokens",
    "200",
    "--format",
    "json",
  ]);
  const text = out.content.join("\n\n");
  assert.match(text, /^--- slice 0 \(Widget Field Guide\) ---\n/);
  assert.ok(text.includes("**Torque**\n\nTwisting force."), text);
  // The slice starts with the page's title and intro, which the window leaves out: marked.
  assert.ok(!text.includes("This guide explains how to"), text);
  assert.match(text, /^--- slice 0 .*---\n\[…\]\n\n/);
  // Text on both sides of the hit.
  assert.ok(text.includes("- Oil monthly."), text);
  assert.ok(text.includes("## Frequently asked"), text);
  assert.equal(out.frontmatter.truncated, true);
  const real = await countTokens("# Widget Field Guide\n\n" + text);
  assert.ok(real <= 200, `${real} real tokens`);
  assert.ok(Number(out.frontmatter.returned_tokens) <= 200);
  assert.ok(Number(out.frontmatter.returned_tokens) >= real);
  const notes = JSON.stringify(out.frontmatter);
  assert.match(notes, /slice 0 is longer than the budget, so only the part around its match/);
  assert.match(notes, /--slices 0 --max-tokens \d+/);
  // Code blocks are never left open: every fence in the window is closed.
  assert.equal((text.match(/^```/gm) ?? []).length % 2, 0, text);
});

Deno.test("cli: fetch --slices cuts a long slice from its top and marks the cut", async () => {
  const out = await cli([
    "fetch",
    GUIDE,
    "--slices",
    "0",
    "--max-tokens",
    "60",
    "--format",
    "json",
  ]);
  const text = out.content.join("\n\n");
  assert.match(text, /^--- slice 0 \(Widget Field Guide\) ---\n# Widget Field Guide\n/);
  assert.match(text, /\n\n\[…\]$/);
  assert.equal(out.frontmatter.truncated, true);
  assert.ok((await countTokens("# Widget Field Guide\n\n" + text)) <= 60);
  assert.match(JSON.stringify(out.frontmatter), /only its beginning is shown/);
});

// The budget pages (one per script), each searched for a word of one sentence that many of
// its slices repeat, at budgets far below a slice.
const BUDGET = `${ROOT_DIR}/fixtures/pages/budget`;
const SEARCHES: [file: string, word: string][] = [
  ["latin.html", "Varroa"],
  ["cyrillic.html", "варроа"],
  ["greek.html", "βαρρόα"],
  ["arabic.html", "الفاروا"],
  ["hebrew.html", "הוורואה"],
  ["devanagari.html", "वैरोआ"],
  ["han.html", "瓦螨"],
  ["japanese.html", "バロアダニ"],
  ["hangul.html", "응애"],
  ["thai.html", "ไรวาร์รัว"],
];

async function search(doc: Document, word: string, n: number) {
  await envelopeReady();
  const ctx = toolContext({
    registry: new ToolRegistry(TOOLS, "desktop"),
    defaultOutput: "markdown",
    signal: new AbortController().signal,
  });
  const result = await runIncisive(
    { url: doc.url, search: word, max_tokens: n },
    ctx,
    () => Promise.resolve({ doc, cached: false }),
  );
  const raw = result.content[0].text;
  const fm = parseFrontmatter(raw) ?? {};
  const fences = fm.fence ? parseFences(raw, String(fm.fence)) : [];
  return { text: fences.map((f) => f.lines.join("\n")).join("\n\n"), fm };
}

Deno.test("search window: in every script the matched word is shown within the budget", async () => {
  for (const [file, word] of SEARCHES) {
    const doc = await readFileDocument(`${BUDGET}/${file}`);
    for (const n of [50, 120, 300]) {
      const { text, fm } = await search(doc, word, n);
      const label = `${file} at ${n}`;
      assert.ok(text.toLowerCase().includes(word.toLowerCase()), `${label}: the hit\n${text}`);
      assert.ok(text.includes(ELISION), `${label}: the cut is marked\n${text}`);
      assert.equal(fm.truncated, true, label);
      // The fence's text: the page's title line and the hits.
      const real = await countTokens(text);
      assert.ok(real <= n, `${label}: ${real} real tokens`);
      // Never inside a character: no combining mark or half a surrogate pair at a cut.
      for (const edge of text.split(ELISION)) {
        const t = edge.trim();
        assert.doesNotMatch(t, /^\p{M}|[\ud800-\udbff]$/u, `${label}: cut inside a character`);
      }
    }
  }
});
