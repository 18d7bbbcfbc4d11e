/**
 * The pages the question sets are written over, as Documents: the real
 * pages of the shared captures and the article-extraction development pages
 * (shared data, never committed; found through PARKOUR_SHARED_DIR).
 *
 * A page id is `real:<name>` (`pep_8`, `ecma262`, `whatwg_html`),
 * `spec:<name>` (a long specification or manual of `fixtures/specs`, which
 * `bench/spec_pages_data.ts` builds from public checkouts, see its
 * PROVENANCE.md) or `article:<key>` (a key of the dataset's ground truth).
 */
import type { Document } from "../lib/content/document/document.ts";
import { htmlDocument } from "../lib/content/pipeline.ts";
import { decodeText } from "../lib/net/charset.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import { PAGES } from "./pages.ts";

/** One question: plain words, and strings any one of which, found verbatim, answers it. */
export interface Question {
  /** Page id. */
  page: string;
  /** The question as a person would ask it. */
  question: string;
  /** Answer strings, verbatim in the page's Markdown. */
  answers: string[];
}

/** The `spec:` pages: file name in `fixtures/specs` and the URL they stand for. */
export const SPEC_PAGES: Record<string, string> = {
  app_manifest: "https://w3c.github.io/manifest/",
  bash_ref: "https://www.gnu.org/software/bash/manual/bash.html",
  dcat: "https://w3c.github.io/dxwg/dcat/",
  did_core: "https://www.w3.org/TR/did-core/",
  encrypted_media: "https://w3c.github.io/encrypted-media/",
  epub_core: "https://w3c.github.io/epub-specs/epub33/core/",
  getusermedia: "https://www.w3.org/TR/mediacapture-streams/",
  json_ld: "https://w3c.github.io/json-ld-syntax/",
  lua_manual: "https://www.lua.org/manual/5.4/manual.html",
  media_source: "https://w3c.github.io/media-source/",
  payment_request: "https://w3c.github.io/payment-request/",
  pointer_events: "https://w3c.github.io/pointerevents/",
  rfc9110: "https://httpwg.org/specs/rfc9110.html",
  rfc9111: "https://httpwg.org/specs/rfc9111.html",
  rfc9112: "https://httpwg.org/specs/rfc9112.html",
  rfc9113: "https://httpwg.org/specs/rfc9113.html",
  rfc9421: "https://httpwg.org/specs/rfc9421.html",
  rfc6265: "https://httpwg.org/specs/rfc6265.html",
  rfc9651: "https://httpwg.org/specs/rfc9651.html",
  rfc7541: "https://httpwg.org/specs/rfc7541.html",
  rfc9114: "https://httpwg.org/specs/rfc9114.html",
  rfc9204: "https://httpwg.org/specs/rfc9204.html",
  rfc9530: "https://httpwg.org/specs/rfc9530.html",
  rfc9205: "https://httpwg.org/specs/rfc9205.html",
  rfc9218: "https://httpwg.org/specs/rfc9218.html",
  rfc7616: "https://httpwg.org/specs/rfc7616.html",
  rfc9209: "https://httpwg.org/specs/rfc9209.html",
  rfc8288: "https://httpwg.org/specs/rfc8288.html",
  rfc7838: "https://httpwg.org/specs/rfc7838.html",
  rfc9842: "https://httpwg.org/specs/rfc9842.html",
  shacl: "https://w3c.github.io/data-shapes/shacl/",
  sparql_query: "https://w3c.github.io/sparql-query/spec/",
  wai_aria: "https://w3c.github.io/aria/",
  vc_data_model: "https://www.w3.org/TR/vc-data-model-2.0/",
  webdriver: "https://w3c.github.io/webdriver/",
  webrtc: "https://www.w3.org/TR/webrtc/",
  wot_td: "https://www.w3.org/TR/wot-thing-description11/",
};

const cache = new Map<string, Document>();

/** A page's HTML (decoded) and the URL it stands for. */
export interface PageSource {
  /** The page's HTML. */
  html: string;
  /** Its URL. */
  url: string;
}

/** The HTML and URL of a page id (throws when the shared folder is missing). */
export async function pageSource(id: string): Promise<PageSource> {
  const shared = sharedDir();
  if (!shared) throw new Error("set PARKOUR_SHARED_DIR to the shared folder");
  const [kind, name] = [id.slice(0, id.indexOf(":")), id.slice(id.indexOf(":") + 1)];
  const html = (raw: Uint8Array) => decodeText(raw, "text/html").text;
  if (kind === "real") {
    const page = PAGES.find((p) => p.name === name);
    if (!page) throw new Error(`unknown real page ${name}`);
    return {
      html: html(await gunzipFile(`${shared}/fixtures/real/${name}.html.gz`)),
      url: page.url,
    };
  } else if (kind === "spec") {
    const url = SPEC_PAGES[name];
    if (!url) throw new Error(`unknown spec page ${name}`);
    const folder = `${shared}/fixtures/specs`;
    try {
      return { html: html(await gunzipFile(`${folder}/${name}.html.gz`)), url };
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
      throw new Error(
        `spec page ${name} missing: expected ${name}.html.gz in ${folder} ` +
          "(build it with bench/spec_pages_data.ts)",
      );
    }
  } else if (kind === "article") {
    const dataset = `${shared}/datasets/article-extraction`;
    const truth = JSON.parse(await Deno.readTextFile(`${dataset}/ground-truth.json`)) as Record<
      string,
      { url: string }
    >;
    if (!truth[name]) throw new Error(`unknown article ${name}`);
    return {
      html: html(await gunzipFile(`${dataset}/html/${name}.html.gz`)),
      url: truth[name].url,
    };
  }
  throw new Error(`page id must start with real:, spec: or article:, got ${id}`);
}

/** The Document of a page id (throws when the shared folder is missing). */
export async function questionPage(id: string): Promise<Document> {
  const hit = cache.get(id);
  if (hit) return hit;
  const { html, url } = await pageSource(id);
  const doc = htmlDocument(html, url);
  cache.set(id, doc);
  return doc;
}

/** Reads a question set file. */
export async function readQuestions(path: string): Promise<Question[]> {
  return JSON.parse(await Deno.readTextFile(path)) as Question[];
}
