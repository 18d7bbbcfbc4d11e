/**
 * Main-content extraction as the user receives it: each page of
 * `fixtures/pages/` written for one failure kind is read through the CLI
 * (`fetch FILE --format markdown`, the view's body every face returns, and
 * the envelope the MCP and CLI faces print), and the text is checked for
 * what must be there and what must not.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "../../support/process.ts";

const PAGES = `${ROOT_DIR}/fixtures/pages`;

/** What the CLI prints for `fetch` on a fixture page with `flags`. */
async function fetchPage(name: string, ...flags: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCli(
    ["fetch", `${PAGES}/${name}.html`, ...flags],
    {},
    MAIN,
    [`--allow-read=${ROOT_DIR}/fixtures`],
  );
  assert.equal(code, 0, stderr);
  return stdout;
}

const markdown = (name: string, ...flags: string[]) =>
  fetchPage(name, "--format", "markdown", ...flags);

function hasAll(text: string, parts: string[]) {
  for (const p of parts) assert.ok(text.includes(p), `returned: ${p}\n---\n${text}`);
}

function hasNone(text: string, parts: string[]) {
  for (const p of parts) assert.ok(!text.includes(p), `left out: ${p}\n---\n${text}`);
}

Deno.test("returned text: the page title is the fence's first line, not a line of the text", async () => {
  const title = "Ferry timetable changes from April | Estuary Daily";
  const envelope = await fetchPage("article_ends");
  const lines = envelope.split("\n");
  const open = lines.findIndex((l) => l.startsWith("┌─ "));
  assert.match(lines[open], /^┌─ untrusted content \[[0-9a-f]{8}\]$/);
  // The title is the site's name after the headline the text opens with: said once.
  assert.deepEqual(lines.slice(open + 1, open + 4), [
    "│",
    "│ # Ferry timetable changes from April",
    "│",
  ]);
  assert.ok(!envelope.includes(title), "the title is not repeated");
  const body = await markdown("article_ends");
  assert.ok(!body.includes(`# ${title}`), body);
  // The article's own headline is its text, and stays.
  assert.match(body, /^# Ferry timetable changes from April$/m);
});

Deno.test("returned text: an image's alt stays only where it describes a figure; full_page keeps every alt", async () => {
  const chart = "[Image: Chart of Lisbon's monthly rainfall, 2020 to 2024";
  const others = [
    "[Image: IMG_2041.jpg]",
    "[Image: Photo: Rui Tavares / Almanac Agency",
    "[Image: Rainfall in Lisbon fell by a third in five years]",
    "[Image: A yellow tram passes a cafe",
  ];
  const body = await markdown("article_images");
  hasAll(body, [chart, "Lisbon recorded 512 millimetres", "one wet season would not refill"]);
  hasNone(body, others);
  const whole = await markdown("article_images", "--full-page");
  hasAll(whole, [chart, ...others]);
});

Deno.test("returned text: a short article is not replaced by the longer comment thread under it", async () => {
  const body = await markdown("article_comments");
  hasAll(body, [
    "From next Monday the Millbrook library stays open until nine",
    "volunteers run the late desk",
  ]);
  hasNone(body, ["This is wonderful news", "Great decision.", "14 comments", "Leave a reply"]);
  // A thread whose every post is marked as a comment is still read as the thread.
  const thread = await markdown("forum_thread");
  hasAll(thread, ["Reload drops connections under load"]);
  assert.ok(thread.split("\n").filter((l) => l.trim()).length > 5, thread);
});

Deno.test("returned text: embedded posts are content even in boxes named social or widget", async () => {
  const body = await markdown("article_embeds");
  hasAll(body, [
    "Two in the morning and the queue already reaches the lighthouse",
    "Sunrise over the stage, with the whole crowd singing along",
    "Hundreds of fans camped along the quay",
    "review the queueing arrangements",
  ]);
  hasNone(body, ["Share on Facebook", "Share this story"]);
});

Deno.test("returned text: bylines, headline lists, teasers, prompts and newsletter boxes around the article are left out", async () => {
  const body = await markdown("article_ends");
  hasAll(body, [
    "The estuary ferry will run every twenty minutes",
    "Evening sailings will end at eleven",
    "fares would not change this year",
    "strand shift workers at the hospital",
    "two weeks before the change.",
  ]);
  hasNone(body, [
    "By Ada Quill",
    "Updated March 3, 2026",
    "Advertisement",
    "More on this story",
    "Ferry crews vote to end their strike",
    "Don't miss",
    "Follow us on Facebook",
    "Sign up for our free morning newsletter",
    "Related stories",
    "Bridge tolls to rise",
    "Image 1 of 4",
  ]);
});

Deno.test("returned text: a prompt speaks to the reader; the same words in the story's sentences stay", async () => {
  const body = await markdown("article_story_words");
  hasAll(body, [
    "will print twice as many copies from January",
    "Nearly four thousand households now subscribe to the weekly edition.",
    "Readers follow her on Twitter for the crossword hints",
    "wanted to share the story of the crew",
    "Subscribers can download the app to read the paper on the ferry.",
    "The new press starts on May 5.",
  ]);
  hasNone(body, [
    "By Ada Quill",
    "Updated 4:10 p.m.",
    "Follow the Gazette on Instagram",
    "Sign up for our morning newsletter",
    "Email Ada Quill at",
  ]);
});

Deno.test("returned text: a reading list that is the article stays; related stories beside one go", async () => {
  const body = await markdown("reading_list");
  hasAll(body, [
    "Winter is the keepers' season",
    "How a French Engineer Taught Glass to Bend Light",
    "What the Last Keeper of Longstone Remembers",
    "The Painters Who Followed the Lights North",
  ]);
  hasNone(body, ["The Lamp Room, a magazine", "About"]);
  const ends = await markdown("article_ends");
  hasNone(ends, ["Bridge tolls to rise", "Ferry crews vote to end their strike"]);
});

Deno.test("returned text: a section whose id is its slug keeps its text, even when the slug holds a furniture word", async () => {
  const text = await markdown("slug_ids_spec");
  // Ids such as "tin-cookie-syntax" on "Syntax" and "cookie-date" on "Dates" name the topic.
  hasAll(text, [
    "#### 1.1.1. Syntax",
    "the pantry rejects a line that lacks the colon",
    "#### 1.1.2. Semantics",
    "the oldest record in a tin is always taken before a newer one",
    "### 2.1. Dates",
    "a record without a month is read as this month",
    "### 2.2. Paths",
    "the pantry never carries a biscuit past the oven",
  ]);
  // A consent box named "cookie-banner" whose heading shares none of its words is still furniture.
  hasNone(text, ["We value your privacy", "Accept all"]);
});

Deno.test("returned text: a specification's notes, examples and term lists stay where no main element marks the body", async () => {
  const text = await markdown("spec_asides");
  hasAll(text, [
    // Notes and examples in <aside>, as spec generators write them: content, not a sidebar.
    "such a lantern is recorded in the ledger of absent lamps instead",
    "The keeper of the harbour light publishes this catalogue:",
    "ex:harbour a lc:Catalogue ;",
    "whether a wick may belong to two lanterns at once",
    // Items led by a link to a term's definition in code font name terms, not stories.
    "`wq:TrimRecord`](https://wicks.example/vocab#wq:TrimRecord), which records when",
    "which states how many hours a wick may burn",
    "measured in grams",
  ]);
  // An aside that is the site's sidebar is still furniture.
  hasNone(text, ["Other vocabularies", "Wick Registry"]);
});

Deno.test("returned text: a numbered figure keeps its diagram and caption; a photo's caption stays out", async () => {
  const text = await markdown("spec_asides");
  // "Figure 1 ..." labels a diagram the text refers to; the image stays beside its caption.
  hasAll(text, [
    "[Image: Diagram of the wick classes: a trim record and a soot measure both point to one wick]",
    "How trim records and soot measures refer to the wick they describe.",
  ]);
  hasNone(text, ["The keeper smiling", "The harbour keeper at work", "Lantern Guild"]);
});
