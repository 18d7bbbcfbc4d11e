/**
 * Budgets hold in real tokens (o200k, the public proxy for what clients
 * count): what `fetch --max-tokens N` returns is at most N real tokens, at
 * least 85 % of N when the page is longer, and `returned_tokens` says the
 * real figure. On the test pages of every script (the CLI, as a user runs
 * it), on the budget pages of `fixtures/pages/budget/` (ten scripts and a
 * second Cyrillic text, about 8,000 tokens each: whole-page reads and
 * questions at several budgets, through the tool handler the CLI and MCP
 * call, and the CLI at 1,000), and on the shared real pages (the same tool
 * handler, in process; skipped, visibly, without PARKOUR_SHARED_DIR).
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "./support/process.ts";
import { gunzipFile, sharedDir } from "./support/shared.ts";
import {
  countTokens,
  estimateTokens,
  fitToBudget,
  tokenizerLoaded,
} from "../lib/content/tokens/count.ts";
import { readFileDocument } from "../lib/sources/file/mod.ts";
import { htmlDocument } from "../lib/content/pipeline.ts";
import { decodeText } from "../lib/net/charset.ts";
import type { Document } from "../lib/content/document/document.ts";
import { runIncisive } from "../lib/tools/web_fetch_incisive.ts";
import { toolContext, ToolRegistry } from "../lib/tools/registry.ts";
import { TOOLS } from "../lib/tools/catalog.ts";
import { envelopeReady, parseFrontmatter } from "../lib/envelope/frontmatter.ts";
import { parseFences, sanitizeLabel } from "../lib/envelope/fence.ts";

const SCRIPTS = `${ROOT_DIR}/fixtures/pages/scripts`;
const PAGES = [
  "latin.html",
  "latin_diacritics.html",
  "cyrillic.html",
  "greek.html",
  "arabic.html",
  "han.html",
  "japanese.html",
  "hangul.html",
  "code.py",
  "data.json",
];
/** Least share of N a longer page must fill. */
const FLOOR = 0.85;

Deno.test("tokens: the o200k tables load on the first exact count, not on import", async () => {
  assert.equal(tokenizerLoaded(), false);
  assert.equal(estimateTokens("no exact count needed"), estimateTokens("no exact count needed"));
  assert.equal(tokenizerLoaded(), false);
  assert.equal(await countTokens("Hello world"), 2);
  assert.equal(tokenizerLoaded(), true);
});

// --help loads the tools (the page commands' flags are the request model's); --version loads no
// package at all (tests/startup_test.ts).
Deno.test("cli: --help does not load the tokenizer", async () => {
  const { code, stderr } = await runCli(["--help"], {}, MAIN, ["--log-level=debug"]);
  assert.equal(code, 0);
  assert.match(stderr, /Resolved package folder of/, "the debug log names the packages loaded");
  assert.doesNotMatch(stderr, /Resolved package folder of gpt-tokenizer/);
});

Deno.test("tokens: text that looks like a special token is counted as text", async () => {
  assert.ok((await countTokens("a <|endoftext|> b")) > 3);
});

Deno.test("tokens: the estimate is within 25 % of real tokens on every script's page", async () => {
  for (const name of PAGES) {
    const doc = await readFileDocument(`${SCRIPTS}/${name}`);
    const real = await countTokens(doc.markdown);
    const ratio = estimateTokens(doc.markdown) / real;
    assert.ok(ratio >= 0.75 && ratio <= 1.25, `${name}: estimate/real ${ratio.toFixed(2)}`);
  }
});

Deno.test("tokens: fitToBudget keeps text within budget and cuts at a boundary", async () => {
  const paragraph = "Один абзац русского текста, который повторяется несколько раз. ";
  const text = Array.from({ length: 40 }, (_, i) => `${i}. ${paragraph}`).join("\n\n");
  const fit = await fitToBudget(text, 300);
  assert.equal(fit.trimmed, true);
  assert.ok(fit.tokens <= 300, `${fit.tokens}`);
  assert.equal(fit.tokens, await countTokens(fit.text));
  assert.ok(fit.tokens >= 240, `${fit.tokens}`);
  assert.ok(text.startsWith(fit.text));
  assert.match(text.slice(fit.text.length), /^ ?\n/, "cut at a line break");
  const whole = await fitToBudget("short", 300);
  assert.deepEqual(whole, { text: "short", tokens: 1, trimmed: false });
  assert.equal((await fitToBudget(text, 0)).text, "");
});

/**
 * The text as the reader gets it, the title line once: an MCP fence opens
 * with `# title` (the body's first line), the CLI's formats print the text
 * without it, and the view counted it in the budget either way.
 */
function withTitle(text: string, title: string): string {
  const line = title ? `# ${sanitizeLabel(title)}` : "";
  if (!line || text === line || text.startsWith(`${line}\n`)) return text;
  return `${line}\n\n${text}`;
}

/**
 * Checks one answer: at most `n` real tokens, at least FLOOR of `n`, honest
 * returned_tokens. The page's title is shown beside the text (the fence's
 * label, the JSON `title`) and counts in the budget as a `# title` line.
 */
async function checkAnswer(
  label: string,
  text: string,
  fm: Record<string, unknown>,
  n: number,
  title: string,
  response?: string,
) {
  const real = await countTokens(withTitle(text, title));
  assert.ok(real <= n, `${label}: ${real} real tokens returned for max_tokens ${n}`);
  // At the response cap (25,000) the frontmatter and the fence's margins share the budget:
  // the whole response fills it.
  const filled = n >= 25000 && response !== undefined ? await countTokens(response) : real;
  assert.ok(filled >= FLOOR * n, `${label}: only ${filled} real tokens for max_tokens ${n}`);
  assert.equal(fm.truncated, true, `${label}: truncated`);
  // The real count of what was returned (the title counted on its own, so a token or two
  // over); at the response cap, of the whole response.
  const reported = Number(fm.returned_tokens);
  assert.ok(reported >= real, `${label}: returned_tokens ${reported} < ${real} real`);
  if (n < 25000) {
    assert.ok(reported - real <= 2, `${label}: returned_tokens ${reported} != ${real}`);
  }
}

for (const name of PAGES) {
  Deno.test(`cli: fetch --max-tokens holds in real tokens (${name})`, async () => {
    const n = 250;
    const { code, stdout, stderr } = await runCli(
      ["fetch", `${SCRIPTS}/${name}`, "--max-tokens", String(n), "--format", "json"],
      {},
      MAIN,
      [`--allow-read=${ROOT_DIR}/fixtures`],
    );
    assert.equal(code, 0, stderr);
    const out = JSON.parse(stdout);
    const doc = await readFileDocument(`${SCRIPTS}/${name}`);
    assert.ok((await countTokens(doc.markdown)) > 2 * n, `${name} is longer than the budget`);
    await checkAnswer(name, out.content.join("\n\n"), out.frontmatter, n, doc.title);
  });
}

// The budget pages: one per script (and a second Cyrillic text, whose common words o200k
// encodes in fewer tokens than the estimate counts), each a beekeeper's year of about 8,000
// tokens, with a question that every section answers in part.
const BUDGET = `${ROOT_DIR}/fixtures/pages/budget`;
const BUDGET_PAGES: [file: string, question: string][] = [
  ["latin.html", "How much honey should I leave the bees for winter?"],
  ["cyrillic.html", "Сколько мёда оставить пчёлам на зиму?"],
  ["cyrillic_garden.html", "Как поливать грядки летом?"],
  ["greek.html", "Πόσο μέλι να αφήσω στις μέλισσες για τον χειμώνα;"],
  ["arabic.html", "كم من العسل أترك للنحل في الشتاء؟"],
  ["hebrew.html", "כמה דבש להשאיר לדבורים לחורף?"],
  ["devanagari.html", "सर्दी के लिए मधुमक्खियों के पास कितना शहद छोड़ें?"],
  ["han.html", "冬天要给蜜蜂留多少蜂蜜？"],
  ["japanese.html", "冬のためにミツバチにどれくらいはちみつを残しますか？"],
  ["hangul.html", "겨울에 꿀벌에게 꿀을 얼마나 남겨야 하나요?"],
  ["thai.html", "ควรเหลือน้ำผึ้งไว้ให้ผึ้งเท่าไรในฤดูหนาว"],
];

/** The page's text and frontmatter for `args`, through the tool handler (its url is the doc's). */
async function toolAnswer(doc: Document, args: Record<string, unknown>) {
  await envelopeReady();
  const ctx = toolContext({
    registry: new ToolRegistry(TOOLS, "desktop"),
    defaultOutput: "markdown",
    signal: new AbortController().signal,
  });
  const result = await runIncisive(
    { url: doc.url, ...args } as Parameters<typeof runIncisive>[0],
    ctx,
    () => Promise.resolve({ doc, cached: false }),
  );
  const text = result.content[0].text;
  const fm = parseFrontmatter(text) ?? {};
  const fences = fm.fence ? parseFences(text, String(fm.fence)) : [];
  return { text: fences.map((f) => f.lines.join("\n")).join("\n\n"), fm, whole: text };
}

/**
 * Checks a question's answer: at most `n` real tokens (the title counted
 * with it), honest `returned_tokens`, an extract (the pages are far longer
 * than the budget) not cut by the final check, and at least `floor` of `n`.
 */
async function checkQuestion(
  label: string,
  answer: { text: string; fm: Record<string, unknown>; whole: string },
  n: number,
  title: string,
  floor: number,
) {
  const real = await countTokens(withTitle(answer.text, title));
  assert.ok(real <= n, `${label}: ${real} real tokens returned for max_tokens ${n}`);
  assert.equal(answer.fm.extracted, true, `${label}: extracted`);
  const reported = Number(answer.fm.returned_tokens);
  assert.ok(reported >= real && reported - real <= 2, `${label}: returned_tokens ${reported}`);
  assert.doesNotMatch(answer.whole, /larger than the budget, cut to fit it/, `${label}: cut`);
  assert.ok(real >= floor * n, `${label}: only ${real} real tokens for max_tokens ${n}`);
}

Deno.test("budget pages: whole-page reads fill 85 % of the budget in every script, never more than it", async () => {
  for (const [file] of BUDGET_PAGES) {
    const doc = await readFileDocument(`${BUDGET}/${file}`);
    assert.ok((await countTokens(doc.markdown)) > 7000, `${file} is long`);
    for (const n of [300, 500, 800, 1000, 2000, 3000]) {
      const { text, fm } = await toolAnswer(doc, { max_tokens: n });
      await checkAnswer(`${file} at ${n}`, text, fm, n, doc.title);
    }
  }
});

Deno.test("budget pages: a question's answer fills 85 % of the budget in every script, never more than it", async () => {
  for (const [file, question] of BUDGET_PAGES) {
    const doc = await readFileDocument(`${BUDGET}/${file}`);
    for (const n of [300, 1000, 3000]) {
      const answer = await toolAnswer(doc, { max_tokens: n, query: question });
      await checkQuestion(`${file} at ${n}`, answer, n, doc.title, FLOOR);
    }
  }
});

for (const [file, question] of BUDGET_PAGES) {
  Deno.test(`cli: fetch --max-tokens 1000 and --query fill the budget (${file})`, async () => {
    const doc = await readFileDocument(`${BUDGET}/${file}`);
    const run = async (...flags: string[]) => {
      const { code, stdout, stderr } = await runCli(
        ["fetch", `${BUDGET}/${file}`, "--max-tokens", "1000", "--format", "json", ...flags],
        {},
        MAIN,
        [`--allow-read=${ROOT_DIR}/fixtures`],
      );
      assert.equal(code, 0, stderr);
      const out = JSON.parse(stdout);
      return { text: out.content.join("\n\n"), fm: out.frontmatter, whole: stdout };
    };
    const page = await run();
    await checkAnswer(`${file} page`, page.text, page.fm, 1000, doc.title);
    await checkQuestion(`${file} question`, await run("--query", question), 1000, doc.title, FLOOR);
  });
}

// The shared real pages, through the tool handler the CLI and MCP call.
const SHARED = sharedDir();
const skip = SHARED ? "" : " — SKIPPED: set PARKOUR_SHARED_DIR";

async function answer(doc: Document, n: number) {
  await envelopeReady();
  const ctx = toolContext({
    registry: new ToolRegistry(TOOLS, "desktop"),
    defaultOutput: "markdown",
    signal: new AbortController().signal,
  });
  const result = await runIncisive(
    { url: "file:///page.html", max_tokens: n },
    ctx,
    () => Promise.resolve({ doc, cached: false }),
  );
  const text = result.content[0].text;
  const fm = parseFrontmatter(text) ?? {};
  const fences = fm.fence ? parseFences(text, String(fm.fence)) : [];
  return { text: fences.map((f) => f.lines.join("\n")).join("\n\n"), fm, response: text };
}

async function checkPages(pages: AsyncIterable<[string, Document]>, budgets: number[]) {
  let checked = 0;
  for await (const [label, doc] of pages) {
    const total = await countTokens(doc.markdown);
    for (const n of budgets) {
      if (total <= 1.25 * n) continue;
      const { text, fm, response } = await answer(doc, n);
      await checkAnswer(`${label} at ${n}`, text, fm, n, doc.title, response);
      checked++;
    }
  }
  assert.ok(checked > 0);
}

Deno.test({
  name: `real pages: the page view holds in real tokens (PEP 8, ECMA-262, WHATWG)${skip}`,
  ignore: !SHARED,
  fn: () =>
    checkPages(
      (async function* () {
        for (const name of ["pep_8", "ecma262", "whatwg_html"]) {
          const html = new TextDecoder().decode(
            await gunzipFile(`${SHARED}/fixtures/real/${name}.html.gz`),
          );
          yield [name, htmlDocument(html, `https://example.org/${name}`)] as [string, Document];
        }
      })(),
      [600, 5000, 25000],
    ),
});

Deno.test({
  name: `real pages: the page view holds in real tokens (JSON captures)${skip}`,
  ignore: !SHARED,
  fn: () =>
    checkPages(
      (async function* () {
        const names = [...Deno.readDirSync(`${SHARED}/fixtures/real`)].map((e) => e.name);
        for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
          yield [name, await readFileDocument(`${SHARED}/fixtures/real/${name}`)] as [
            string,
            Document,
          ];
        }
      })(),
      [600, 5000],
    ),
});

Deno.test({
  name: `real pages: the page view holds in real tokens (article-extraction pages)${skip}`,
  ignore: !SHARED,
  fn: () =>
    checkPages(
      (async function* () {
        const dir = `${SHARED}/datasets/article-extraction/html`;
        for (const name of [...Deno.readDirSync(dir)].map((e) => e.name).sort()) {
          const html = decodeText(await gunzipFile(`${dir}/${name}`), "text/html").text;
          yield [name.slice(0, 12), htmlDocument(html, "https://example.org/article")] as [
            string,
            Document,
          ];
        }
      })(),
      [600],
    ),
});
