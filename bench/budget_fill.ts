/**
 * How much of a token budget each script fills: the budget pages of
 * `fixtures/pages/budget/` (one per script, about 8,000 o200k tokens each)
 * read whole and with a question at max_tokens 300, 1,000 and 3,000, through
 * the tool handler the CLI and MCP call, in process. For each answer: the
 * real (o200k) tokens returned, the page's title counted as the `# title`
 * line every face shows beside the text, as a share of the budget, and the
 * `returned_tokens` the frontmatter reports; a question's answer marked `cut` was cut
 * by the final exact check (at its end, whatever the rank of what was there).
 *
 *     deno run -A bench/budget_fill.ts [--json]
 */
import { countTokens } from "../lib/content/tokens/count.ts";
import { readFileDocument } from "../lib/sources/file/mod.ts";
import { runIncisive } from "../lib/tools/web_fetch_incisive.ts";
import { toolContext, ToolRegistry } from "../lib/tools/registry.ts";
import { TOOLS } from "../lib/tools/catalog.ts";
import { envelopeReady, parseFrontmatter } from "../lib/envelope/frontmatter.ts";
import { parseFences, sanitizeLabel } from "../lib/envelope/fence.ts";
import type { Document } from "../lib/content/document/document.ts";

const DIR = new URL("../fixtures/pages/budget/", import.meta.url).pathname;

/** Each budget page and a question its every section answers in part. */
export const BUDGET_PAGES: { file: string; question: string }[] = [
  { file: "latin.html", question: "How much honey should I leave the bees for winter?" },
  { file: "cyrillic.html", question: "Сколько мёда оставить пчёлам на зиму?" },
  { file: "cyrillic_garden.html", question: "Как поливать грядки летом?" },
  { file: "greek.html", question: "Πόσο μέλι να αφήσω στις μέλισσες για τον χειμώνα;" },
  { file: "arabic.html", question: "كم من العسل أترك للنحل في الشتاء؟" },
  { file: "hebrew.html", question: "כמה דבש להשאיר לדבורים לחורף?" },
  { file: "devanagari.html", question: "सर्दी के लिए मधुमक्खियों के पास कितना शहद छोड़ें?" },
  { file: "han.html", question: "冬天要给蜜蜂留多少蜂蜜？" },
  { file: "japanese.html", question: "冬のためにミツバチにどれくらいはちみつを残しますか？" },
  { file: "hangul.html", question: "겨울에 꿀벌에게 꿀을 얼마나 남겨야 하나요?" },
  { file: "thai.html", question: "ควรเหลือน้ำผึ้งไว้ให้ผึ้งเท่าไรในฤดูหนาว" },
];

export const BUDGETS = [300, 1000, 3000];

await envelopeReady();
const ctx = toolContext({
  registry: new ToolRegistry(TOOLS, "desktop"),
  defaultOutput: "markdown",
  signal: new AbortController().signal,
});

async function answer(doc: Document, args: Record<string, unknown>) {
  const result = await runIncisive(
    { url: doc.url, ...args } as Parameters<typeof runIncisive>[0],
    ctx,
    () => Promise.resolve({ doc, cached: false }),
  );
  const text = result.content[0].text;
  const fm = parseFrontmatter(text) ?? {};
  const fences = fm.fence ? parseFences(text, String(fm.fence)) : [];
  const body = fences.map((f) => f.lines.join("\n")).join("\n\n");
  const title = doc.title ? `# ${sanitizeLabel(doc.title)}\n\n` : "";
  // The final check cut the answer (the note says a block was larger than the budget).
  const cut = /larger than the budget, cut to fit it/.test(text);
  return { real: await countTokens(title + body), reported: Number(fm.returned_tokens), cut };
}

const rows: Record<string, unknown>[] = [];
for (const { file, question } of BUDGET_PAGES) {
  const doc = await readFileDocument(DIR + file);
  const script = file.replace(/\.html$/, "");
  for (const n of BUDGETS) {
    const page = await answer(doc, { max_tokens: n });
    const query = await answer(doc, { max_tokens: n, query: question });
    rows.push({
      script,
      n,
      page: page.real,
      pageReported: page.reported,
      query: query.real,
      queryCut: query.cut,
    });
  }
}
if (Deno.args.includes("--json")) console.log(JSON.stringify(rows));
else {
  console.log("real o200k tokens returned at max_tokens N (share of N)");
  console.log("script           N      page           question");
  for (const r of rows) {
    const cell = (v: number) => `${v} (${(v / Number(r.n)).toFixed(2)})`.padEnd(15);
    console.log(
      `${String(r.script).padEnd(16)} ${String(r.n).padEnd(6)} ${cell(Number(r.page))}${
        cell(Number(r.query))
      }${r.queryCut ? "cut" : ""}`,
    );
  }
}
