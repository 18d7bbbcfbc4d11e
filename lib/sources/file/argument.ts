/**
 * Telling a local file from a URL on the command line (kept apart from the
 * file reader so the CLI does not load the converter to decide), and the
 * CLI's loader: files from the file system, anything else as the router
 * loads it.
 *
 * @module
 */
import { loadDocument } from "../router.ts";
import type { Loaded, LoadOptions } from "../source.ts";

/** Whether a CLI argument names a local file rather than a URL. */
export function isFileArgument(arg: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) || arg.startsWith("file://");
}

/** Endings of saved pages: a bare `page.html` is a file, never the host `page.html`. */
const FILE_ENDINGS =
  /\.(?:html?|xhtml|md|markdown|txt|text|pdf|json|xml|rss|atom|csv|ya?ml|toml|rst|adoc)$/i;

/**
 * The page a command-line target names: a URL, a file (relative to `base`,
 * the folder the command was run from), or a bare host read as https.
 */
export function pageTarget(target: string, base: string): { url: string; note?: string } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return { url: target };
  const path = target.startsWith("/") ? target : `${base}/${target}`;
  const looksLikeHost = /^(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:[/?#].*)?$/i.test(target) &&
    !FILE_ENDINGS.test(target.replace(/[?#].*$/, ""));
  if (looksLikeHost) {
    let exists = false;
    try {
      Deno.statSync(path);
      exists = true;
    } catch { /* not a file here */ }
    if (!exists) return { url: `https://${target}`, note: `reading https://${target}` };
  }
  return { url: new URL(`file://${path}`).href };
}

/** Loads a local file from the file system, and a URL from the cache, a source or the web. */
export async function loadFileOrPage(url: string, options: LoadOptions): Promise<Loaded> {
  if (isFileArgument(url)) {
    const { readFileDocument } = await import("./mod.ts");
    return { doc: await readFileDocument(url, { fullPage: options.fullPage }), cached: false };
  }
  return await loadDocument(url, options);
}
