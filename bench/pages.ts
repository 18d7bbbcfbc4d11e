/**
 * The real pages the pipeline benchmarks run on (shared captures, never
 * committed), and the baseline converter they are compared with.
 */
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import TurndownService from "turndown";
import { gfm } from "@joplin/turndown-plugin-gfm";

/** Folder of the shared captures, when set. */
export const SHARED: string | undefined = sharedDir();

/** The benchmark pages: file name and the URL they were captured from. */
export const PAGES = [
  { name: "pep_8", url: "https://peps.python.org/pep-0008/", label: "PEP 8 (122 KB)" },
  { name: "ecma262", url: "https://tc39.es/ecma262/", label: "ECMA-262 (7.6 MB)" },
  { name: "whatwg_html", url: "https://html.spec.whatwg.org/", label: "WHATWG HTML (15.6 MB)" },
] as const;

/** Page name. */
export type PageName = typeof PAGES[number]["name"];

/** The raw bytes of a page. */
export async function pageBytes(name: PageName): Promise<Uint8Array> {
  if (!SHARED) {
    throw new Error("set PARKOUR_SHARED_DIR to the shared folder to run the pipeline benchmarks");
  }
  return await gunzipFile(`${SHARED}/fixtures/real/${name}.html.gz`);
}

/** The baseline: turndown with the GFM plugin, given the HTML string (its recommended use under Deno). */
export function turndownBaseline(): (html: string) => string {
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
  service.use(gfm);
  return (html) => service.turndown(html);
}
