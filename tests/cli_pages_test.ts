/**
 * The `fetch` and `sections` commands on local files (the CLI, and only the
 * CLI, reads files).
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "./support/process.ts";

const GUIDE = `${ROOT_DIR}/fixtures/pages/guide.html`;
const READ = [`--allow-read=${ROOT_DIR}/fixtures`];
const cli = (args: string[]) => runCli(args, {}, MAIN, READ);

Deno.test("cli: sections lists a saved page's outline", async () => {
  const { code, stdout } = await cli(["sections", GUIDE]);
  assert.equal(code, 0);
  assert.match(stdout, /^---\nsource: file:\/\/\S+guide\.html\n/);
  assert.match(stdout, /total_sections: 6/);
  assert.match(stdout, /│ {3}- Fitting a widget \(#fitting\)/);
});

Deno.test("cli: fetch with --section, --format markdown and json", async () => {
  const md = await cli([
    "fetch",
    GUIDE,
    "--section",
    "Sizes",
    "--section",
    "faq",
    "--format",
    "markdown",
  ]);
  assert.equal(md.code, 0);
  assert.ok(md.stdout.includes("| L | 40 | cars |"));
  assert.ok(md.stdout.includes("## Frequently asked"));
  assert.ok(!md.stdout.includes("│"), "markdown output has no fence margins");
  const json = await cli(["fetch", GUIDE, "--search", "oil", "--format", "json"]);
  assert.equal(json.code, 0);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.error, false);
  assert.equal(parsed.frontmatter.search, "oil");
  assert.ok(Array.isArray(parsed.frontmatter.matched_slices));
  assert.match(parsed.content[0], /Oil monthly/);
});

Deno.test("cli: fetch --max-tokens cuts, --slices reads slices", async () => {
  const cut = await cli(["fetch", GUIDE, "--max-tokens", "60"]);
  assert.equal(cut.code, 0);
  assert.match(cut.stdout, /truncated: true/);
  const slices = await cli(["fetch", GUIDE, "--slices", "0,-1"]);
  assert.equal(slices.code, 0);
  assert.match(slices.stdout, /--- slice 0 \(/);
});

Deno.test("cli: --full-page keeps what extraction leaves out", async () => {
  const article = `${ROOT_DIR}/fixtures/pages/news_article.html`;
  const main = await cli(["fetch", article, "--format", "json"]);
  assert.equal(main.code, 0);
  const parsed = JSON.parse(main.stdout);
  assert.ok(parsed.frontmatter.dropped_text_share > 0.3);
  assert.doesNotMatch(parsed.content[0], /Most read/);
  const whole = await cli(["fetch", article, "--full-page", "--format", "json"]);
  assert.equal(whole.code, 0);
  const wholeParsed = JSON.parse(whole.stdout);
  assert.equal(wholeParsed.frontmatter.full_page, true);
  assert.match(wholeParsed.content[0], /Most read/);
  const outline = await cli(["sections", article, "--full-page"]);
  assert.equal(outline.code, 0);
  assert.match(outline.stdout, /12 comments/);
  const mainOutline = await cli(["sections", article]);
  assert.doesNotMatch(mainOutline.stdout, /12 comments/);
});

Deno.test("cli: page command errors are clear", async () => {
  const missing = await cli(["fetch", `${ROOT_DIR}/fixtures/pages/nope.html`]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^Error: no such file: /);
  // A file outside what the start line may read (it reads its config folder and its checkout).
  const outside = await Deno.makeTempFile({ prefix: "parkour-denied-", suffix: ".html" });
  await Deno.copyFile(GUIDE, outside);
  const denied = await runCli(["fetch", outside]);
  await Deno.remove(outside);
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /needs permission: run with --allow-read=/);
  const noTarget = await cli(["fetch"]);
  assert.equal(noTarget.code, 2);
  assert.match(noTarget.stderr, /'fetch' needs <url\|file>/);
  const badSlices = await cli(["fetch", GUIDE, "--slices", "1,x"]);
  assert.equal(badSlices.code, 2);
  assert.match(
    badSlices.stderr,
    /--slices must be comma-separated whole numbers such as 3,4,5 \(got x\)/,
  );
  const badTokens = await cli(["fetch", GUIDE, "--max-tokens", "10"]);
  assert.equal(badTokens.code, 2);
  assert.match(badTokens.stderr, /--max-tokens must be a whole number from 50 to 25000 \(got 10\)/);
  const conflict = await cli(["fetch", GUIDE, "--search", "a", "--section", "b"]);
  assert.equal(conflict.code, 2, "conflicting views are a usage error");
  assert.match(conflict.stderr, /--section and --search cannot be combined: use one of --query/);
});

Deno.test("cli: fetch --query returns the answering section with the extract fields", async () => {
  const handbook = `${ROOT_DIR}/fixtures/pages/handbook.html`;
  const json = await cli([
    "fetch",
    handbook,
    "--query",
    "how often does the supply boat come?",
    "--max-tokens",
    "200",
    "--format",
    "json",
  ]);
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.frontmatter.extracted, true);
  assert.equal(parsed.frontmatter.extract_confidence, "high");
  assert.ok(parsed.frontmatter.returned_tokens <= 200);
  assert.ok(parsed.frontmatter.original_tokens > 1000);
  const text = parsed.content[0];
  assert.match(text, /## Supplies and provisions\n\nA supply boat calls on the first Monday/);
  assert.doesNotMatch(text, /Puffins/, "unrelated sections stay out");
  const bad = await cli(["fetch", handbook, "--query", "boat", "--max-tokens", "49"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--max-tokens must be a whole number from 50 to 25000/);
});

Deno.test("cli: a one-shot command converts a large page on its own thread, with no worker", async () => {
  // Over the conversion worker's threshold (512 K characters), with ids a lookup needs.
  const parts = Array.from(
    { length: 2500 },
    (_, i) =>
      `<h2 id="part-${i}">Part ${i}</h2><p id="p${i}">${"words of the page ".repeat(14)}</p>`,
  );
  const dir = await Deno.makeTempDir({ prefix: "parkour-oneshot-" });
  const page = `${dir}/large.html`;
  await Deno.writeTextFile(page, `<html><body><main>${parts.join("")}</main></body></html>`);
  try {
    const flags = [`--allow-read=${ROOT_DIR}/fixtures,${dir}`, "--log-level=debug"];
    const commands: [string[], RegExp][] = [
      [["sections", page], /total_sections: 2500\n/],
      [["fetch", page, "--search", "part"], /total_slices: \d+\n/],
      [["fetch", page, "--section", "#p2400"], /│ ## Part 2400\n/],
    ];
    for (const [args, answer] of commands) {
      const { code, stdout, stderr } = await runCli(args, {}, MAIN, flags);
      assert.equal(code, 0, stderr.slice(-2000));
      const loaded = [...stderr.matchAll(/ES module: (\S+?),/g)].map((m) => m[1]);
      assert.ok(
        loaded.some((m) => m.endsWith("/lib/content/html/markdown.ts")),
        "Deno's log names the modules evaluated (the converter's among them)",
      );
      assert.ok(
        !loaded.some((m) => m.includes("/lib/content/workers/convert_worker.ts")),
        `${args.join(" ")}: no conversion worker`,
      );
      assert.match(stdout, answer);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
