/**
 * Text for measuring token estimates against a real tokenizer, by script and
 * page kind. Two parts, kept apart so the estimate is not judged on what it
 * was fitted to:
 *
 * - calibration ({@link calibrationCorpus}): translated message catalogues
 *   of the Debian packages on this machine (`/usr/share/locale/<lang>/…/*.mo`,
 *   one script per language) and translated manual pages
 *   (`/usr/share/man/<lang>/`, prose), the article bodies of the shared
 *   article-extraction benchmark, the shared JSON captures, this project's
 *   own TypeScript, and the benchmark pages (PEP 8, ECMA-262, WHATWG) as the
 *   pipeline converts them;
 * - evaluation ({@link evaluationPages}): the same page kinds as the views
 *   return them (each page's Markdown), plus the test pages written for this
 *   project in `fixtures/pages/scripts/`.
 */
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import { readFileDocument } from "../lib/sources/file/mod.ts";
import { htmlDocument } from "../lib/content/pipeline.ts";
import { decodeText } from "../lib/net/charset.ts";
import type { Document } from "../lib/content/document/document.ts";

/** One piece of text with what it is. */
export interface Sample {
  /** Script or page kind: latin, cyrillic, greek, arabic, hebrew, han, japanese, hangul, indic, thai, code, json, spec, article. */
  group: string;
  /** Where it comes from. */
  source: string;
  /** The text. */
  text: string;
}

const ROOT = new URL("../", import.meta.url);
const LOCALES: Record<string, string[]> = {
  latin: ["de", "fr", "pl", "cs", "vi", "es", "tr"],
  cyrillic: ["ru", "uk", "bg", "sr"],
  greek: ["el"],
  arabic: ["ar", "fa"],
  hebrew: ["he"],
  han: ["zh_CN", "zh_TW"],
  japanese: ["ja"],
  hangul: ["ko"],
  indic: ["hi", "bn", "ta"],
  thai: ["th"],
};

/** The translated strings of one `.mo` file. */
function moStrings(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  const le = magic === 0x950412de;
  if (!le && view.getUint32(0, false) !== 0x950412de) return [];
  const n = view.getUint32(8, le);
  const table = view.getUint32(16, le);
  const out: string[] = [];
  const decoder = new TextDecoder();
  for (let i = 1; i < n; i++) {
    const length = view.getUint32(table + i * 8, le);
    const offset = view.getUint32(table + i * 8 + 4, le);
    const s = decoder.decode(bytes.subarray(offset, offset + length)).split("\0")[0];
    if (s.length > 0) out.push(s);
  }
  return out;
}

/** Cuts `text` into pieces of about `size` characters at line breaks. */
export function chunks(text: string, size: number, limit = Infinity): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length && out.length < limit) {
    let end = Math.min(text.length, start + size);
    const nl = text.lastIndexOf("\n", end);
    if (end < text.length && nl > start + size / 2) end = nl;
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** Message catalogue text per script, in pieces of about 3,000 characters. */
export async function localeSamples(perLanguage = 12): Promise<Sample[]> {
  const out: Sample[] = [];
  for (const [group, langs] of Object.entries(LOCALES)) {
    for (const lang of langs) {
      const dir = `/usr/share/locale/${lang}/LC_MESSAGES`;
      let text = "";
      try {
        for await (const e of Deno.readDir(dir)) {
          if (!e.name.endsWith(".mo") || e.name.startsWith("iso_")) continue;
          text += moStrings(await Deno.readFile(`${dir}/${e.name}`)).join("\n") + "\n";
        }
      } catch {
        continue;
      }
      for (const t of chunks(text, 3000, perLanguage)) {
        out.push({ group, source: `locale:${lang}`, text: t });
      }
    }
  }
  return out;
}

const MAN_PAGES: Record<string, string[]> = {
  latin: ["de", "fr", "pl", "es", "it", "cs"],
  cyrillic: ["ru", "uk"],
  han: ["zh_CN", "zh_TW"],
  japanese: ["ja"],
  hangul: ["ko"],
};

/** Roff source reduced to its text (macro names and font escapes dropped). */
function roffText(source: string): string {
  return source.split("\n").map((line) => {
    if (line.startsWith('.\\"') || line.startsWith("'\\\"")) return "";
    const text = line.startsWith(".") ? line.replace(/^\.\S*\s?/, "") : line;
    return text.replace(/\\f[BIRP]|\\f\(..|\\s[-+]?\d/g, "").replace(/\\-/g, "-")
      .replace(/\\\(.{2}|\\\[[^\]]*\]|\\[&|^]/g, "").replace(/\\e/g, "\\");
  }).filter((l) => l.trim() !== "").join("\n");
}

/** Translated manual pages (prose) per script, in pieces of about 3,000 characters. */
export async function manSamples(perLanguage = 15): Promise<Sample[]> {
  const out: Sample[] = [];
  for (const [group, langs] of Object.entries(MAN_PAGES)) {
    for (const lang of langs) {
      let text = "";
      for (const section of ["man1", "man8", "man5"]) {
        const dir = `/usr/share/man/${lang}/${section}`;
        try {
          for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name))) {
            if (!e.name.endsWith(".gz") || text.length > perLanguage * 3000) continue;
            text += roffText(new TextDecoder().decode(await gunzipFile(`${dir}/${e.name}`))) + "\n";
          }
        } catch {
          continue;
        }
      }
      for (const t of chunks(text, 3000, perLanguage)) {
        out.push({ group, source: `man:${lang}`, text: t });
      }
    }
  }
  return out;
}

/** This project's TypeScript, in pieces. */
export async function codeSamples(limit = 60): Promise<Sample[]> {
  const out: Sample[] = [];
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(new URL(dir, ROOT))) {
      if (e.isDirectory) await walk(`${dir}${e.name}/`);
      else if (e.name.endsWith(".ts")) files.push(`${dir}${e.name}`);
    }
  };
  await walk("lib/content/");
  for (const file of files.sort()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const t of chunks(text, 4000, 4)) out.push({ group: "code", source: file, text: t });
  }
  return out.slice(0, limit);
}

/** Every other shared JSON capture (the rest are for evaluation only), raw. */
export async function jsonSamples(): Promise<Sample[]> {
  const dir = sharedDir();
  if (!dir) return [];
  const out: Sample[] = [];
  const names = [...Deno.readDirSync(`${dir}/fixtures/real`)].map((e) => e.name)
    .filter((n) => /\.json(\.gz)?$/.test(n)).sort().filter((_, i) => i % 2 === 0);
  for (const name of names) {
    const e = { name };
    const path = `${dir}/fixtures/real/${e.name}`;
    const bytes = e.name.endsWith(".gz") ? await gunzipFile(path) : await Deno.readFile(path);
    for (const t of chunks(new TextDecoder().decode(bytes), 4000, 3)) {
      out.push({ group: "json", source: e.name, text: t });
    }
  }
  return out;
}

/** Article bodies (human-labelled text) of the article-extraction benchmark. */
export async function articleBodySamples(): Promise<Sample[]> {
  const dir = sharedDir();
  if (!dir) return [];
  const truth = JSON.parse(
    await Deno.readTextFile(`${dir}/datasets/article-extraction/ground-truth.json`),
  ) as Record<string, { articleBody: string }>;
  return Object.entries(truth).map(([key, v]) => ({
    group: "article",
    source: key.slice(0, 12),
    text: v.articleBody,
  }));
}

/** The benchmark pages (PEP 8, ECMA-262, WHATWG) as Markdown. */
export async function specMarkdown(): Promise<{ name: string; doc: Document }[]> {
  const dir = sharedDir();
  if (!dir) return [];
  const out = [];
  for (const name of ["pep_8", "ecma262", "whatwg_html"]) {
    const html = new TextDecoder().decode(await gunzipFile(`${dir}/fixtures/real/${name}.html.gz`));
    out.push({ name, doc: htmlDocument(html, `https://example.org/${name}`) });
  }
  return out;
}

/** Everything the weights are fitted on. */
export async function calibrationCorpus(): Promise<Sample[]> {
  const specs = (await specMarkdown()).flatMap((s) =>
    chunks(s.doc.markdown, 4000, 40).map((text) => ({ group: "spec", source: s.name, text }))
  );
  return [
    ...await localeSamples(),
    ...await manSamples(),
    ...await codeSamples(),
    ...await jsonSamples(),
    ...(await articleBodySamples()).slice(0, 47),
    ...specs,
  ];
}

/** A page as the views return it, with its kind. */
export interface EvalPage {
  /** Script or page kind. */
  group: string;
  /** Page name. */
  name: string;
  /** Its Markdown (what the views cut). */
  markdown: string;
  /** Its Document (undefined for raw JSON). */
  doc?: Document;
}

/** The test pages written for this project, one per script. */
export const SCRIPT_PAGES_DIR: string = decodeURIComponent(
  new URL("fixtures/pages/scripts/", ROOT).pathname,
);

/** Pages to evaluate on, as the pipeline converts them. */
export async function evaluationPages(options: { articles?: number } = {}): Promise<EvalPage[]> {
  const out: EvalPage[] = [];
  for await (const e of Deno.readDir(SCRIPT_PAGES_DIR)) {
    if (e.name === "PROVENANCE.md") continue;
    const path = SCRIPT_PAGES_DIR + e.name;
    const doc = await readFileDocument(path);
    out.push({ group: e.name.replace(/\..*$/, ""), name: e.name, markdown: doc.markdown, doc });
  }
  out.sort((a, b) => a.name.localeCompare(b.name));
  const dir = sharedDir();
  if (!dir) return out;
  for (const s of await specMarkdown()) {
    out.push({ group: "spec", name: s.name, markdown: s.doc.markdown, doc: s.doc });
  }
  for await (const e of Deno.readDir(`${dir}/fixtures/real`)) {
    if (!/\.json(\.gz)?$/.test(e.name)) continue;
    const path = `${dir}/fixtures/real/${e.name}`;
    const bytes = e.name.endsWith(".gz") ? await gunzipFile(path) : await Deno.readFile(path);
    const text = new TextDecoder().decode(bytes);
    const doc = e.name.endsWith(".gz") ? undefined : await readFileDocument(path);
    out.push({ group: "json", name: e.name, markdown: doc?.markdown ?? text, doc });
  }
  const html = `${dir}/datasets/article-extraction/html`;
  const names = [...Deno.readDirSync(html)].map((e) => e.name).sort();
  for (const name of names.slice(0, options.articles ?? names.length)) {
    const bytes = await gunzipFile(`${html}/${name}`);
    const doc = htmlDocument(decodeText(bytes, "text/html").text, "https://example.org/article");
    out.push({ group: "article", name: name.slice(0, 12), markdown: doc.markdown, doc });
  }
  return out;
}
