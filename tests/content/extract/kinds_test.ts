/**
 * One page of a kind for each rule of main-content selection that had no
 * test of its own (`fixtures/pages/`, written for these tests): each page
 * shows the failure its rule fixes, and the test fails when the rule is
 * taken out. Read through the library, as `fetchPage` converts a page.
 */
import assert from "node:assert/strict";
import { htmlDocument } from "../../../lib/content/pipeline.ts";
import { ROOT_DIR } from "../../support/process.ts";

async function page(name: string): Promise<string> {
  const html = await Deno.readTextFile(`${ROOT_DIR}/fixtures/pages/${name}.html`);
  return htmlDocument(html, `https://pages.example/${name}`).markdown;
}

function hasAll(text: string, parts: string[]) {
  for (const p of parts) assert.ok(text.includes(p), `kept: ${p}\n---\n${text}`);
}

function hasNone(text: string, parts: string[]) {
  for (const p of parts) assert.ok(!text.includes(p), `left out: ${p}\n---\n${text}`);
}

Deno.test("kinds: boxes whose class names furniture (promo, author-bio, sidebar) go, inside the article too", async () => {
  const text = await page("soft_marks");
  hasAll(text, [
    "replaced with a radar sensor",
    "a volunteer is now scanning them",
    "through a full cycle of spring and neap tides",
  ]);
  hasNone(text, [
    "Our winter guide to the coast path",
    "Mina Ferrante has written",
    "independent weekly",
  ]);
});

Deno.test("kinds: an id that repeats its section's heading names a topic, not a widget", async () => {
  const text = await page("topical_ids");
  hasAll(text, [
    "## Comments",
    "A line starting with a hash sign is a comment",
    "# the north sector is red",
    "## Navigation",
    "## Related",
    "which the checker compares",
  ]);
});

Deno.test("kinds: an article box whose class also names ads stays the article above a longer comment thread", async () => {
  const text = await page("body_marks");
  hasAll(text, [
    "The council has bought the old ropewalk",
    "work on the roof will start before the first market",
  ]);
  hasNone(text, ["I remember my grandfather", "Nine votes to two is a better result"]);
});

Deno.test("kinds: a grid of teaser cards below the article goes, whatever its class", async () => {
  const text = await page("teaser_cards");
  hasAll(text, ["The first swifts of the year", "eating and sleeping on the wing"]);
  hasNone(text, ["Hedgehog crossings", "Community orchard", "forty pipistrelles"]);
});

Deno.test("kinds: a list of linked items with their descriptions inside the article body is the article's", async () => {
  const text = await page("body_list");
  hasAll(text, [
    "Tide tables are printed in a dozen formats",
    "reads the admiralty's tables and draws a curve",
    "works out the window for crossing a harbour bar",
    "in the spring issue",
  ]);
  hasNone(text, ["About", "Contact"]);
});

Deno.test("kinds: a page that is all teaser cards (an index) keeps them as its content", async () => {
  const text = await page("card_index");
  hasAll(text, [
    "# Walks",
    "Between the two lighthouses",
    "Eleven miles along the cliffs",
    "where the café opens at weekends",
  ]);
  hasNone(text, ["Join the society", "About the society", "Privacy"]);
});

Deno.test("kinds: code samples in a box named like navigation (tabs) stay", async () => {
  const text = await page("code_tabs");
  hasAll(text, [
    "curl https://tide.example/v1/gauges/0417/latest",
    'reading = client.gauge("0417").latest()',
    "console.log(reading.height, reading.time);",
    "answers with its last reading and a stale flag",
  ]);
});

Deno.test("kinds: an article split into two boxes by an image slot keeps its last paragraph", async () => {
  const text = await page("split_article");
  hasAll(text, [
    "The lifeboat station at the point will launch",
    "not only near high water",
    "The station's open day will go ahead in August",
  ]);
  hasNone(text, ["Point Gazette, The Harbour"]);
});

Deno.test("kinds: photo captions and credits go; a table's caption stays with its table", async () => {
  const text = await page("article_captions");
  hasAll(text, [
    "The native oyster beds in the estuary have grown",
    "| 2025 | 27 |",
    "Table 1: young oysters counted on the north bed each September.",
    "Fishing on the beds stays closed",
  ]);
  hasNone(text, [
    "Photo: Jon Tarrant",
    "The survey boat at low water.",
    "Counting oysters in a quadrat",
  ]);
});

Deno.test("kinds: a heading whose section held only furniture goes with it", async () => {
  const text = await page("article_captions");
  hasNone(text, ["In pictures"]);
});

Deno.test("kinds: a paragraph that is only a link to another story goes; a sentence with a link stays", async () => {
  const text = await page("article_promo");
  hasAll(text, [
    "Dredging of the harbour channel will start in July",
    "spoil will still go to the saltmarsh project",
    "working through the night on the outer bar",
  ]);
  hasNone(text, ["Why the channel keeps silting up", "Pilots ask for a second boat"]);
});

Deno.test("kinds: a thread whose every post is marked 'comment' is read again without the marks", async () => {
  const text = await page("forum_marked");
  hasAll(text, [
    "it jumps off the windlass gypsy every few metres",
    "Measure eleven links of the new chain",
    "The chandler is changing it for the right pitch.",
  ]);
});

Deno.test("kinds: a box of sentences that are mostly links to other stories does not join the article", async () => {
  const text = await page("link_digest");
  hasAll(text, ["The night ferry across the bay will run again", "if enough passengers use them"]);
  hasNone(text, [
    "ordered two new boats",
    "harbour lights will be switched",
    "dredging of the channel",
  ]);
});

Deno.test("kinds: after the article's last sentence, a tag list, a loose fragment and an empty heading go", async () => {
  const text = await page("article_tail");
  hasAll(text, ["Repairs to the sea wall along the promenade", "less than the insurance payment"]);
  hasNone(text, ["Share this article", "Promenade](", "Print edition, page 4", "Comments"]);
});
