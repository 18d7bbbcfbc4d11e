/**
 * `parkour fetch` and `parkour sections`: the page tools on the command
 * line (their flags are `page_flags.ts`'s). This module and the tools load
 * only when one of these commands runs.
 *
 * @module
 */
import { configFromEnv, env } from "../config.ts";
import type { Flags } from "../flags.ts";
import { TOOLS } from "../tools/catalog.ts";
import { toolContext, ToolRegistry } from "../tools/registry.ts";
import { runIncisive } from "../tools/web_fetch_incisive.ts";
import { runSections } from "../tools/web_fetch_sections.ts";
import { type Loader, webLoader } from "../tools/page_view.ts";
import type { HintContext } from "../hint.ts";
import type { ViewResult } from "../views/view.ts";
import {
  fromText,
  OUTLINE_KEYS,
  outlineRequestSchema,
  PAGE_KEYS,
  pageRequestSchema,
  paramName,
  parseWith,
  RequestError,
} from "../views/request.ts";
import { isFileArgument } from "../sources/file/argument.ts";
import { parseFences } from "../envelope/fence.ts";
import { envelopeReady, parseFrontmatter } from "../envelope/frontmatter.ts";
import type { ToolResult } from "../envelope/response.ts";
import { toolFailure } from "../tools/failure.ts";
import { palette, progress, textReport } from "./terminal.ts";
import { cliCommand, invokedFrom } from "./invocation.ts";
import { applySharedFlags, UsageError } from "./spec.ts";

/** Loads URLs from the web and anything else from the file system (CLI only). */
const cliLoader: Loader = async (url, options) => {
  if (isFileArgument(url)) {
    const { readFileDocument } = await import("../sources/file/mod.ts");
    return { doc: await readFileDocument(url, { fullPage: options.fullPage }), cached: false };
  }
  return await webLoader(url, options);
};

/** The request a page command's flags make, checked by the request schema. */
function pageInput(flags: Flags, keys: readonly string[], url: string): Record<string, unknown> {
  const input: Record<string, unknown> = { url };
  for (const key of keys) {
    const value = flags[paramName("cli", key)];
    if (value === undefined) continue;
    if (value === true) input[key] = true;
    else input[key] = fromText(key, Array.isArray(value) ? value : [String(value)]);
  }
  return input;
}

/** Endings of saved pages: a bare `page.html` is a file, never the host `page.html`. */
const FILE_ENDINGS =
  /\.(?:html?|xhtml|md|markdown|txt|text|pdf|json|xml|rss|atom|csv|ya?ml|toml|rst|adoc)$/i;

/** The page a command-line target names: a URL, a file, or a bare host read as https. */
function pageTarget(target: string): { url: string; note?: string } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return { url: target };
  const base = invokedFrom();
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

/** Runs `fetch` or `sections` on `target`; resolves to the exit code. */
export async function runPageCommand(
  kind: "fetch" | "sections",
  flags: Flags,
  target: string,
): Promise<number> {
  await envelopeReady();
  const config = applySharedFlags(configFromEnv(), flags);
  const registry = new ToolRegistry(TOOLS, config.profile);
  const ctx = toolContext({
    registry,
    defaultOutput: config.defaultOutput,
    signal: new AbortController().signal,
  });
  const { url, note } = pageTarget(target);
  if (note) console.error(note);
  const hints: HintContext = { face: "cli", command: cliCommand(), target };
  // `--slice all`: the whole outline in one window.
  const whole = flags["--slice"] === "all";
  const viewFlags: Flags = { ...flags };
  if (whole) delete viewFlags["--slice"];
  const shown = url.startsWith("file:") ? target : url;
  const working = progress(`reading ${shown}`);
  let result: ToolResult;
  try {
    if (kind === "sections") {
      const args = parseWith(outlineRequestSchema, pageInput(viewFlags, OUTLINE_KEYS, url));
      result = await runSections(
        args,
        ctx,
        cliLoader,
        hints,
        whole ? Number.MAX_SAFE_INTEGER : undefined,
      );
    } else {
      // Conflicting views are refused by the tool before anything is read (a usage error here).
      const args = parseWith(pageRequestSchema, pageInput(viewFlags, PAGE_KEYS, url));
      result = await runIncisive(args, ctx, cliLoader, hints);
    }
  } catch (error) {
    if (error instanceof RequestError) throw new UsageError(error.forFace("cli"));
    if (error instanceof UsageError) throw error;
    result = toolFailure(kind === "fetch" ? "fetch" : "sections", error, hints);
  } finally {
    working.stop();
  }
  const text = result.content[0]?.text ?? "";
  const format = typeof flags["--format"] === "string"
    ? flags["--format"]
    : Deno.stdout.isTerminal()
    ? "text"
    : "envelope";
  const meta = parseFrontmatter(text);
  const v = (result as { view?: ViewResult }).view;
  const fences = meta?.fence ? parseFences(text, String(meta.fence)) : [];
  if (format === "json") {
    // The outline as the list of its sections; any other answer as frontmatter and contents.
    const outline = !result.isError && v?.outline ? v.outline.entries : undefined;
    console.log(JSON.stringify(
      {
        error: result.isError === true,
        frontmatter: meta ?? {},
        ...(outline ? { sections: outline } : { content: fences.map((f) => f.lines.join("\n")) }),
        text: meta ? undefined : text,
      },
      null,
      2,
    ));
  } else if (format === "markdown" && !result.isError) {
    // The page text alone: the view's body (and the closest names of sections not found).
    const parts = v ? [v.body, v.extra?.content ?? ""].filter(Boolean) : [];
    console.log(
      v
        ? parts.join("\n\n")
        : fences.length
        ? fences.map((f) => f.lines.join("\n")).join("\n\n")
        : text,
    );
    // Stdout stays the page text; how to read on (a cut page, more windows) goes to stderr.
    if (meta?.truncated === true || meta?.total_slices !== undefined) {
      for (const line of [meta.hint ?? []].flat()) console.error(`next: ${line}`);
    }
  } else if (format === "text") {
    const out = result.isError ? Deno.stderr : Deno.stdout;
    const colour = palette(out.isTerminal(), env("NO_COLOR"));
    if (!meta) (result.isError ? console.error : console.log)(colour.red(text));
    else {
      const report = textReport(
        {
          meta,
          contents: fences.map((f) => f.lines.join("\n")),
          entries: v?.outline?.entries,
          shownSource: url.startsWith("file:") ? target : undefined,
        },
        { colour, columns: terminalColumns() },
      );
      (result.isError ? console.error : console.log)(report);
    }
  } else {
    (result.isError ? console.error : console.log)(text);
  }
  if (result.isError) return 1;
  // Nothing of what was asked exists: not a success.
  const notFound = meta?.sections_not_found !== undefined && meta?.sections_returned === undefined;
  const noSlice = meta?.slices_not_found !== undefined && meta?.slices === undefined;
  return notFound || noSlice ? 1 : 0;
}

/** The terminal's width, or 100 when stdout is not a terminal. */
function terminalColumns(): number {
  try {
    const columns = Deno.stdout.isTerminal() ? Deno.consoleSize().columns : 0;
    // A pseudo-terminal may report no size at all.
    return columns >= 40 ? columns : 100;
  } catch {
    return 100;
  }
}
