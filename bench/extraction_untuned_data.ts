/**
 * Builds the two sets of pages `bench/extraction_untuned.ts` scores
 * main-content extraction on, pages none of the extraction rules were tuned
 * on, from checkouts of their public repositories, into folders outside this
 * repository (the shared folder's `datasets/`; never committed):
 *
 * - `trafilatura-eval/`: the evaluation corpus of trafilatura
 *   (github.com/adbar/trafilatura, Apache-2.0): 990 web pages (news, blogs,
 *   magazines, government and company pages; about two thirds German), each
 *   with up to six snippets of its main text that an extraction must
 *   return ("with") and up to six of its boilerplate that it must not
 *   ("without"), chosen by hand (`tests/evaldata.json`, `tests/eval/`,
 *   `tests/cache/`).
 * - `readability-pages/`: the test pages of Mozilla's Readability
 *   (github.com/mozilla/readability, Apache-2.0): each `source.html` with
 *   the text of its `expected.html` (Readability's output, reviewed by its
 *   maintainers: the reference is an extractor's, not a human labeller's)
 *   as the article body, in the article-extraction benchmark's
 *   `ground-truth.json` format, so its scorer applies.
 *
 * ```sh
 * git clone https://github.com/adbar/trafilatura /tmp/trafilatura
 * git clone https://github.com/mozilla/readability /tmp/readability
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A bench/extraction_untuned_data.ts \
 *   --trafilatura /tmp/trafilatura --readability /tmp/readability
 * ```
 *
 * Each folder gets a `PROVENANCE.md` naming the repository, its commit
 * (`--trafilatura-commit`, `--readability-commit`, else read from the
 * checkout's `.git`) and its licence.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { gzipBytes, pathExists } from "../tests/support/shared.ts";
import { DOMParser } from "linkedom";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    trafilatura: { type: "string" },
    readability: { type: "string" },
    "trafilatura-commit": { type: "string" },
    "readability-commit": { type: "string" },
    out: { type: "string" },
  },
});
const shared = Deno.env.get("PARKOUR_SHARED_DIR");
const out = values.out ?? (shared ? `${shared}/datasets` : undefined);
if (!out || (!values.trafilatura && !values.readability)) {
  console.error(
    "usage: PARKOUR_SHARED_DIR=DIR deno run -A bench/extraction_untuned_data.ts " +
      "[--trafilatura CHECKOUT] [--readability CHECKOUT] [--out DATASETS_DIR]",
  );
  Deno.exit(2);
}

/** The commit of a checkout, when it has a `.git`. */
async function commitOf(dir: string, given?: string): Promise<string> {
  if (given) return given;
  const r = await new Deno.Command("git", {
    args: ["-C", dir, "rev-parse", "HEAD"],
    stdout: "piped",
  })
    .output().catch(() => undefined);
  return r?.success ? new TextDecoder().decode(r.stdout).trim() : "unknown";
}

interface TrafilaturaItem {
  file: string;
  with: string[];
  without: string[];
}

if (values.trafilatura) {
  const src = values.trafilatura;
  const dir = `${out}/trafilatura-eval`;
  await Deno.mkdir(`${dir}/html`, { recursive: true });
  const data = JSON.parse(await Deno.readTextFile(`${src}/tests/evaldata.json`)) as Record<
    string,
    TrafilaturaItem
  >;
  // File names are written NFC in the annotations, and NFD on some file systems.
  const files = new Map<string, string>();
  for (const sub of ["cache", "eval"]) {
    for await (const e of Deno.readDir(`${src}/tests/${sub}`)) {
      const key = e.name.normalize("NFC");
      if (!files.has(key)) files.set(key, `${src}/tests/${sub}/${e.name}`);
    }
  }
  const truth: Record<string, TrafilaturaItem & { url: string }> = {};
  const urls = Object.keys(data).sort();
  let n = 0;
  for (const url of urls) {
    const item = data[url];
    const path = files.get(item.file.normalize("NFC"));
    if (!path) {
      console.error(`trafilatura: no file for ${url} (${item.file})`);
      continue;
    }
    const key = `t${String(n++).padStart(4, "0")}`;
    await Deno.writeFile(`${dir}/html/${key}.html.gz`, await gzipBytes(await Deno.readFile(path)));
    truth[key] = { url, file: item.file, with: item.with, without: item.without };
  }
  await Deno.writeTextFile(`${dir}/ground-truth.json`, JSON.stringify(truth, null, 1));
  const commit = await commitOf(src, values["trafilatura-commit"]);
  await Deno.writeTextFile(
    `${dir}/PROVENANCE.md`,
    `# trafilatura's evaluation corpus

From github.com/adbar/trafilatura at commit ${commit}: \`tests/evaldata.json\`
(the annotations) and the pages it names under \`tests/eval/\` and
\`tests/cache/\`. The repository is under the Apache License 2.0; the pages are
third-party web pages archived there for evaluation, kept here as data for
measurement only (never committed to Parkour, never shipped).

${n} pages, keys \`t0000\`... in the order of their URLs; \`html/<key>.html.gz\` is
the page as archived (bytes unchanged); \`ground-truth.json\` maps each key to
its \`url\`, original \`file\` name and the hand-chosen snippets: \`with\`, text
of the main content an extraction must return, \`without\`, boilerplate it must
not.

Scoring (trafilatura's own, \`tests/eval_common.py\`): a snippet counts as
found when its whitespace-normalised text is a substring of the
whitespace-normalised extraction; true positives are \`with\` snippets found,
false negatives \`with\` snippets missed, false positives \`without\` snippets
found; precision, recall and F1 over the counts of all pages. Published on
this corpus (2026-08-04): trafilatura 2.2.0 standard 0.906 / 0.943 / 0.924
(precision / recall / F1; tuned on this corpus), magic-html 0.889,
readability-lxml 0.826, html_text 0.691.

Built by \`bench/extraction_untuned_data.ts\` in the Parkour repository.
`,
  );
  console.log(`trafilatura-eval: ${n} pages in ${dir}`);
}

/** Elements after which text breaks (so words of two paragraphs do not join). */
const BLOCK = new Set([
  "P",
  "DIV",
  "LI",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "BR",
  "TR",
  "TD",
  "TH",
  "PRE",
  "BLOCKQUOTE",
  "FIGCAPTION",
  "DT",
  "DD",
  "SECTION",
  "ARTICLE",
  "TABLE",
  "UL",
  "OL",
]);

// deno-lint-ignore no-explicit-any
function textOf(node: any, parts: string[]): void {
  for (const child of node.childNodes ?? []) {
    if (child.nodeType === 3) parts.push(child.textContent);
    else if (child.nodeType === 1) {
      if (child.tagName === "SCRIPT" || child.tagName === "STYLE") continue;
      textOf(child, parts);
      if (BLOCK.has(child.tagName)) parts.push("\n");
    }
  }
}

if (values.readability) {
  const src = `${values.readability}/test/test-pages`;
  const dir = `${out}/readability-pages`;
  await Deno.mkdir(`${dir}/html`, { recursive: true });
  const names: string[] = [];
  for await (const e of Deno.readDir(src)) if (e.isDirectory) names.push(e.name);
  names.sort();
  const truth: Record<string, { url: string; articleBody: string }> = {};
  for (const name of names) {
    const page = `${src}/${name}`;
    if (
      !(await pathExists(`${page}/source.html`)) || !(await pathExists(`${page}/expected.html`))
    ) {
      continue;
    }
    const expected = await Deno.readTextFile(`${page}/expected.html`);
    const doc = new DOMParser().parseFromString(
      `<!doctype html><html><body>${expected}</body></html>`,
      "text/html",
    );
    const parts: string[] = [];
    textOf(doc.body, parts);
    const articleBody = parts.join("").replace(/[ \t\r\f\v\u00a0]+/g, " ").replace(
      /\s*\n\s*/g,
      "\n",
    ).trim();
    await Deno.writeFile(
      `${dir}/html/${name}.html.gz`,
      await gzipBytes(await Deno.readFile(`${page}/source.html`)),
    );
    // Readability's tests read every page as served from this address.
    truth[name] = { url: "http://fakehost/test/page.html", articleBody };
  }
  await Deno.writeTextFile(`${dir}/ground-truth.json`, JSON.stringify(truth, null, 1));
  const commit = await commitOf(values.readability, values["readability-commit"]);
  await Deno.writeTextFile(
    `${dir}/PROVENANCE.md`,
    `# Readability's test pages

From github.com/mozilla/readability at commit ${commit}: every folder of
\`test/test-pages/\` with a \`source.html\` and an \`expected.html\`
(${Object.keys(truth).length} pages). The repository is under the Apache
License 2.0; the pages are third-party web pages (and a few small pages
written for Readability's tests) archived there, kept here as data for
measurement only (never committed to Parkour, never shipped).

\`html/<name>.html.gz\` is \`source.html\` (bytes unchanged); \`ground-truth.json\`
maps each name to the text of \`expected.html\` as \`articleBody\` (text nodes,
a line break after each block element) and the address Readability's tests
read it from, in the format of the article-extraction benchmark, so its
scorer (\`tools/extraction_score.py\`) applies. The reference is Readability's
own output, reviewed by its maintainers, not a human labelling: it keeps
captions, some bylines and lists Readability keeps, and drops the title.

Built by \`bench/extraction_untuned_data.ts\` in the Parkour repository.
`,
  );
  console.log(`readability-pages: ${Object.keys(truth).length} pages in ${dir}`);
}
