/**
 * What the page tools and the source tools share: their annotations, the
 * frontmatter every page answer starts with, shelving the work a Document
 * describes, how a tool call reads a page, and hints in the MCP profile's
 * tool names.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import type { Frontmatter } from "../envelope/frontmatter.ts";
import { registerTip } from "../envelope/tips.ts";
import { type Trusted, trusted } from "../trust.ts";
import type { HintContext } from "../hint.ts";
import { pageFrontmatter, type PageUrl, pageUrl } from "../views/page.ts";
import type { Loader, ReadOptions } from "../views/read.ts";
import type { ToolContext } from "./registry.ts";

registerTip(
  "webfetchsections_scout",
  "{tool:web_fetch_sections} returns a page's heading layout; use it to scout a long page before fetching content",
);

/** Annotations of the page tools: they read the open web and change nothing. */
export const READS_THE_WEB = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

export { pageFrontmatter, type PageUrl, pageUrl };

/**
 * Puts the work a Document describes on the research shelf (inspecting one
 * paper, RFC or repository tracks it) and says so in the frontmatter.
 */
export async function shelveCitation(doc: Document, fm: Frontmatter): Promise<void> {
  if (!doc.citation) return;
  // Loaded with the first work (a command line that reads a web page never needs it).
  const { currentShelf } = await import("../shelf/mod.ts");
  const result = await currentShelf().track(doc.citation);
  if (result.status) fm.set("shelf", result.status);
  if (result.note) fm.append("note", result.note);
}

/** A sibling tool's name in the active profile, for frontmatter hints. */
export function toolRef(ctx: ToolContext, key: string): Trusted {
  return trusted.echo(ctx.toolName(key) ?? key, 64);
}

/** The hint context of the MCP page tools in `ctx`'s profile. */
export function mcpHints(
  ctx: Pick<ToolContext, "toolName">,
  current: "page" | "outline",
): HintContext {
  return {
    face: "mcp",
    current,
    toolName: (t) => {
      const key = t === "page" ? "web_fetch_incisive" : "web_fetch_sections";
      return ctx.toolName(key) ?? key;
    },
    // Source tools by key: undefined when off, so hints naming them are left out.
    tool: (key) => ctx.toolName(key),
  };
}

/**
 * A tool call's options of `readPage`: its signal, render steps as the
 * call's progress, a JavaScript shell answered (not refused), and `load`
 * when a caller gives its own loader (which may read `file://` URLs).
 */
export function toolReading(ctx: ToolContext, load?: Loader): ReadOptions {
  return {
    load,
    files: load !== undefined,
    signal: ctx.signal,
    onRenderStep: (step, total, message) => void ctx.progress(step, total, message).catch(() => {}),
    empty: "shell",
  };
}
