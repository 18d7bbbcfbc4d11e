/**
 * What the main-content extraction benches share: the page read as a user
 * reads it (the CLI's `fetch FILE --format markdown`, with the `fetch`
 * task's own flags), Readability's text as the baseline, pages run two at a
 * time, and the article-extraction benchmark's scorer.
 *
 * @module
 */
import { DOMParser } from "linkedom";
import { Readability } from "@mozilla/readability";
import { decodeText } from "../lib/net/charset.ts";
import { childEnv, taskFlags } from "../tests/support/process.ts";
import { gunzipFile } from "../tests/support/shared.ts";

/** A page of a set, written to a file the CLI reads. */
export interface BenchPage {
  key: string;
  url: string;
  /** The page decoded as the pipeline decodes it. */
  html: string;
  bytes: number;
  file: string;
}

/**
 * The pages of a data set in the article-extraction benchmark's layout
 * (`html/<key>.html.gz`, keys and URLs from its ground truth), each written
 * to a file of a new temporary folder (`pagesDir`, for the caller to
 * remove) that the CLI reads.
 */
export async function loadPages(
  dataset: string,
  truth: Record<string, { url: string }>,
): Promise<{ pages: BenchPage[]; pagesDir: string }> {
  const pagesDir = await Deno.makeTempDir({ prefix: "extraction_pages_" });
  const pages: BenchPage[] = [];
  for (const [key, { url }] of Object.entries(truth)) {
    const raw = await gunzipFile(`${dataset}/html/${key}.html.gz`);
    const file = `${pagesDir}/${key}.html`;
    await Deno.writeFile(file, raw);
    pages.push({ key, url, html: decodeText(raw, "text/html").text, bytes: raw.length, file });
  }
  return { pages, pagesDir };
}

const ROOT = new URL("../", import.meta.url);

/**
 * What the CLI prints for `fetch FILE [--format F] [more...]` (stdout; ""
 * on failure, counted as such).
 */
export async function cliFetch(p: BenchPage, format?: string, ...more: string[]): Promise<string> {
  const args = ["fetch", p.file, ...(format ? ["--format", format] : []), ...more];
  const out = await new Deno.Command(Deno.execPath(), {
    // As a user runs `deno task fetch FILE`: the task's own flags (`run` first).
    args: [...taskFlags("fetch", false), new URL("main.ts", ROOT).pathname, ...args],
    env: childEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    const stderr = new TextDecoder().decode(out.stderr);
    console.error(`${p.key}: the CLI exited ${out.code}: ${stderr.slice(0, 200)}`);
  }
  return out.success ? stdout : "";
}

/** Runs `run` on every page, two at a time (the machine has two cores). */
export async function eachPage(
  pages: readonly BenchPage[],
  run: (p: BenchPage) => Promise<string>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let next = 0;
  const worker = async () => {
    while (next < pages.length) {
      const p = pages[next++];
      out[p.key] = await run(p);
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
}

/** Readability's text of a page ("" when it finds no article or fails). */
export function readabilityText(html: string, url: string): string {
  try {
    const document = new DOMParser().parseFromString(html, "text/html");
    // linkedom has no documentURI from a string parse; Readability resolves links against it.
    Object.defineProperty(document, "documentURI", { value: url });
    // deno-lint-ignore no-explicit-any
    const article = new Readability(document as any).parse();
    return article?.textContent ?? "";
  } catch {
    return "";
  }
}

/**
 * F1, precision and recall of a set of predictions by the benchmark's
 * scorer (on the pages listed in the file `keys`, one a line, when given).
 */
export async function shingleScore(
  scorer: string,
  truth: string,
  predictions: string,
  keys?: string,
): Promise<{ f1: string; precision: string; recall: string }> {
  const score = await new Deno.Command("python3", {
    args: [scorer, truth, predictions, ...(keys ? ["--keys", keys] : [])],
    stdout: "piped",
  }).output();
  const line = new TextDecoder().decode(score.stdout).trim();
  const m = /F1=([\d.]+) precision=([\d.]+) recall=([\d.]+)/.exec(line);
  return m ? { f1: m[1], precision: m[2], recall: m[3] } : { f1: "?", precision: "?", recall: "?" };
}
