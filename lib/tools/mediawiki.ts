/**
 * `mediawiki` (`MediaWiki`): Wikipedia, its sister projects and any
 * MediaWiki site through the Action API.
 *
 * - `page`: an article by title or URL, as a Document (section=, search=,
 *   slices= as on any page);
 * - `search`: full-text search with a namespace; records in the configured
 *   output format;
 * - `references`: numbered footnotes and author-date citations resolved.
 *
 * @module
 */
import { z } from "zod";
import { OUTPUT_FORMATS } from "../config.ts";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { trusted } from "../trust.ts";
import { estimateTokens } from "../content/tokens/count.ts";
import {
  articleUrl,
  parsePage,
  searchWiki,
  titleOfUrl,
  type Wiki,
  wikiFor,
} from "../sources/mediawiki/mod.ts";
import {
  citationKey,
  extractReferences,
  renderCitation,
  renderFootnote,
} from "../sources/mediawiki/refs.ts";
import { DEFAULT_MAX_TOKENS, PAGE_FIELDS } from "../views/request.ts";
import { runIncisive } from "./web_fetch_incisive.ts";
import { READS_THE_WEB } from "./page_view.ts";
import { byAction, defineTool, type ToolContext } from "./registry.ts";

const ACTIONS = ["page", "search", "references"] as const;
const HOST = /^[a-z0-9.-]{1,253}$/;

const schema = z.object({
  action: z.enum(ACTIONS),
  title: z.string().max(1000).optional().describe("page, references: title or URL"),
  query: z.string().max(300).optional().describe("search: words"),
  wiki: z.string().max(300).optional().describe(
    "wiki (default en): language, sister project, host or URL",
  ),
  // The page action's views and budget are the page request's fields, with their limits.
  section: PAGE_FIELDS.section.describe("page: section(s)"),
  search: PAGE_FIELDS.search.describe("page: keyword search"),
  slices: PAGE_FIELDS.slices.describe("page: slice indexes"),
  footnotes: z.union([z.number().int().min(1), z.array(z.number().int().min(1)).max(100)])
    .optional().describe("references: footnote numbers"),
  citations: z.union([z.string().max(300), z.array(z.string().max(300)).max(100)]).optional()
    .describe("references: CITEREF ids"),
  limit: z.number().int().optional().describe("search: results (default 10)"),
  offset: z.number().int().min(0).max(10_000).optional().describe("search: results to skip"),
  namespace: z.number().int().min(0).max(100_000).optional().describe(
    "search: namespace (0 articles)",
  ),
  max_tokens: PAGE_FIELDS.max_tokens.describe(
    `page: token budget (default ${DEFAULT_MAX_TOKENS})`,
  ),
});

type Args = z.infer<typeof schema>;

function list<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The wiki and title a `title=` (title or URL) and `wiki=` name. */
async function target(args: Args, ctx: ToolContext): Promise<{ wiki: Wiki; title: string }> {
  const raw = args.title!.trim();
  if (/^https?:\/\//i.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ToolError(`title is not a valid URL: '${raw.slice(0, 200)}'`);
    }
    const title = titleOfUrl(url);
    if (!title) {
      throw new ToolError(
        `${url.href.slice(0, 200)} is not a wiki article URL (no /wiki/<title> in its path)`,
      );
    }
    return { wiki: await wikiFor(url.href, ctx.signal), title };
  }
  return { wiki: await wikiFor(args.wiki ?? "en", ctx.signal), title: raw };
}

async function pageAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const { wiki, title } = await target(args, ctx);
  return await runIncisive({
    url: articleUrl(wiki, title),
    max_tokens: args.max_tokens,
    section: args.section,
    search: args.search,
    slices: args.slices,
  }, ctx);
}

async function searchAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const query = args.query!.replace(/\s+/g, " ").trim();
  const wiki = await wikiFor(args.wiki ?? "en", ctx.signal);
  const limit = Math.min(50, Math.max(1, args.limit ?? 10));
  const offset = args.offset ?? 0;
  const namespace = args.namespace ?? 0;
  const results = await searchWiki(wiki, query, { limit, offset, namespace, signal: ctx.signal });
  const host = trusted.matching(wiki.host, HOST);
  const fm = new Frontmatter()
    .set("api", trusted.text`MediaWiki (${host})`)
    .set("action", trusted.oneOf(ACTIONS, "search"))
    .set("query", trusted.echo(query, 300));
  if (results.total !== undefined) fm.set("total_results", results.total);
  if (namespace !== 0) fm.set("namespace", namespace);
  if (offset !== 0) fm.set("offset", offset);
  if (results.hits.length === 0) {
    fm.append(
      "note",
      offset > 0 && (results.total ?? 0) > 0
        ? trusted.text`no results at offset ${offset}; there are ${results.total ?? 0} in all`
        : trusted.text`no results on ${host}; try other words, another namespace or another wiki`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  const records = results.hits.map((h) => ({
    title: h.title,
    url: articleUrl(wiki, h.title),
    words: h.words ?? null,
    timestamp: h.timestamp ?? null,
    snippet: h.snippet,
  }));
  // Whole results within the budget; the first is always kept.
  const budget = args.max_tokens ?? DEFAULT_MAX_TOKENS;
  let kept = records.length;
  let rendered = renderRecords(records, format, {
    columns: ["title", "url", "words", "timestamp", "snippet"],
  });
  while (kept > 1 && estimateTokens(rendered.text) > budget) {
    kept--;
    rendered = renderRecords(records.slice(0, kept), format, {
      columns: ["title", "url", "words", "timestamp", "snippet"],
    });
  }
  if (kept < records.length) {
    fm.set("results_omitted", records.length - kept);
    fm.append(
      "hint",
      trusted.text`${
        records.length - kept
      } further result(s) fit the query but not max_tokens: raise max_tokens or lower limit=`,
    );
  }
  const next = offset + results.hits.length;
  if (results.total !== undefined && next < results.total) {
    fm.append("hint", trusted.text`more results: call again with offset=${next}`);
  }
  fm.append(
    "hint",
    trusted.text`use action='page' with a result's title (and the same wiki=) for its full text`,
  );
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title: "Search results" }],
    structured: rendered.structured,
  });
}

async function referencesAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const { wiki, title } = await target(args, ctx);
  const parsed = await parsePage(wiki, title, ctx.signal);
  const url = articleUrl(wiki, parsed.title);
  const refs = extractReferences(parsed.html);
  const wantNotes = [...new Set(list(args.footnotes))];
  const wantCites = list(args.citations);
  const fm = new Frontmatter().set("source", trusted.url(url))
    .set("api", trusted.text`MediaWiki (${trusted.matching(wiki.host, HOST)})`);
  const blocks: { kind: "footnote" | "citation"; id: string; text: string }[] = [];
  if (wantNotes.length > 0) {
    if (refs.footnotes.length === 0) {
      throw new ToolError(`No numbered footnotes found on ${url}; ask for citations= instead`);
    }
    const missing = wantNotes.filter((n) => n > refs.footnotes.length);
    if (missing.length > 0) {
      fm.set("footnotes_not_found", missing);
      fm.set(
        "footnotes_available",
        trusted.matching(`1-${refs.footnotes.length}`, /^1-\d+$/),
      );
    }
    for (const n of wantNotes.filter((n) => n <= refs.footnotes.length)) {
      blocks.push({ kind: "footnote", id: String(n), text: renderFootnote(refs.footnotes[n - 1]) });
    }
  }
  if (wantCites.length > 0) {
    if (refs.citations.length === 0) {
      throw new ToolError(
        `No inline citations found on ${url}; ask for footnotes= instead`,
      );
    }
    const notFound: string[] = [];
    for (const asked of wantCites) {
      const key = citationKey(asked);
      const c = refs.citations.find((c) => c.key === key);
      if (c) blocks.push({ kind: "citation", id: key, text: renderCitation(c) });
      else notFound.push(asked);
    }
    if (notFound.length > 0) {
      fm.set("citations_not_found", notFound.map((s) => trusted.echo(s, 200)));
      fm.set("citations_available_count", refs.citations.length);
    }
  }
  if (blocks.length === 0) {
    fm.append("note", trusted.text`none of the requested references exist on this page`);
    return ctx.respond({ frontmatter: fm });
  }
  const budget = args.max_tokens ?? DEFAULT_MAX_TOKENS;
  let used = 0;
  const kept: typeof blocks = [];
  const dropped: typeof blocks = [];
  for (const b of blocks) {
    const tokens = estimateTokens(b.text);
    if (kept.length > 0 && used + tokens > budget) dropped.push(b);
    else {
      kept.push(b);
      used += tokens;
    }
  }
  const droppedNotes = dropped.filter((b) => b.kind === "footnote").map((b) => Number(b.id));
  const droppedCites = dropped.filter((b) => b.kind === "citation").length;
  if (droppedNotes.length > 0) fm.set("footnotes_omitted", droppedNotes);
  if (droppedCites > 0) fm.set("citations_omitted", droppedCites);
  if (dropped.length > 0) {
    fm.append(
      "hint",
      trusted
        .text`raise max_tokens or request fewer references per call to see the rest`,
    );
  }
  const parts: string[] = [];
  const notes = kept.filter((b) => b.kind === "footnote");
  const cites = kept.filter((b) => b.kind === "citation");
  if (notes.length > 0) parts.push("## Footnotes\n\n" + notes.map((b) => b.text).join("\n\n"));
  if (cites.length > 0) {
    parts.push("## Inline citations\n\n" + cites.map((b) => b.text).join("\n\n"));
  }
  fm.set("tokens", estimateTokens(parts.join("\n\n")));
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: parts.join("\n\n"), title: parsed.displayTitle }],
  });
}

function validate(args: Args): void {
  const has = (v: unknown) => v !== undefined && !(typeof v === "string" && v.trim() === "");
  if (args.action === "page") {
    if (has(args.query)) {
      throw new ToolError(
        "'page' action uses title=, not query=. For full-text search across articles, use action='search' query='...'.",
      );
    }
    if (!has(args.title)) {
      throw new ToolError(
        "'page' action requires the title parameter. Example: action='page' title=\"Gödel's incompleteness theorems\"",
      );
    }
  } else if (args.action === "search") {
    if (has(args.title)) {
      throw new ToolError(
        "'search' action uses query=, not title=. To read one page, use action='page' title='...'.",
      );
    }
    if (!has(args.query)) {
      throw new ToolError(
        "'search' action requires the query parameter. Example: action='search' query='tram systems in Chile'",
      );
    }
  } else {
    if (has(args.query)) {
      throw new ToolError(
        "'references' action uses title= (the page) with footnotes= or citations=, not query=.",
      );
    }
    if (!has(args.title)) {
      throw new ToolError(
        "'references' action requires the title parameter (the page whose references to resolve).",
      );
    }
    if (list(args.footnotes).length === 0 && list(args.citations).length === 0) {
      throw new ToolError(
        "'references' action requires footnotes= or citations= (or both). Example: footnotes=[1, 2] or citations=['#CITEREFSmith2007']",
      );
    }
  }
}

const DESCRIPTION = `Wikipedia, its sister projects and any MediaWiki site through the wiki's
API: clean Markdown, infoboxes as tables, footnotes kept.

- page: title= (with wiki=, default en) or a URL; section=, search=,
  slices= as in {tool:web_fetch_incisive};
- search: query=, namespace=;
- references: resolve a page's footnotes= or citations=.`;

const actions = byAction<Args>({
  page: pageAction,
  search: searchAction,
  references: referencesAction,
});

/** The tool declaration. */
export const mediawiki = defineTool({
  key: "mediawiki",
  names: { desktop: "mediawiki", code: "MediaWiki" },
  title: "MediaWiki",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: (args, ctx) => {
    validate(args);
    return actions(args, ctx);
  },
});
