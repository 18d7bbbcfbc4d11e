/**
 * `arxiv` (`ArXiv`): search arXiv, list a category's newest papers, or read
 * one paper's record.
 *
 * - `search`: arXiv query syntax (field prefixes, boolean operators); the
 *   results are records (id, title, authors, primary category, date) in the
 *   configured output format, inside the fence;
 * - `category`: the newest submissions of a category (`cs.CL`);
 * - `paper`: one paper by identifier or URL: the same record Document the
 *   page tools return for arXiv abstract and PDF URLs, shelved on the
 *   research shelf.
 *
 * Search results are never shelved; only a single paper lookup is.
 *
 * @module
 */
import { z } from "zod";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import { DEFAULT_MAX_BYTES } from "../net/fetch.ts";
import {
  ACCEPTED_ID_FORMS,
  ARXIV_ID_PATTERN,
  type ArxivEntry,
  CATEGORY_PATTERN,
  loadPaperDocument,
  parseArxivId,
  queryArxiv,
  SORT_BY,
  SORT_ORDER,
} from "../sources/arxiv.ts";
import { loadDocument } from "../sources/router.ts";
import {
  mcpHints,
  pageFrontmatter,
  pageUrl,
  READS_THE_WEB,
  shelveCitation,
  toolRef,
} from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";

/** Most results per call (the API allows more, but not usefully in one answer). */
export const MAX_LIMIT = 100;
/** Default results per call. */
export const DEFAULT_LIMIT = 10;

const ACTIONS = ["search", "paper", "category"] as const;

const schema = z.object({
  action: z.enum(ACTIONS),
  query: z.string().max(1000).describe(
    "search: arXiv query; paper: id or URL; category: code (cs.CL)",
  ),
  limit: z.number().int().min(1).optional().describe(
    `results (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
  ),
  offset: z.number().int().min(0).max(30000).optional().describe("results to skip"),
  sort_by: z.enum(SORT_BY).optional().describe("category: submittedDate by default"),
  sort_order: z.enum(SORT_ORDER).optional().describe("default descending"),
});

/** Arguments of the tool. */
export type ArxivArgs = z.infer<typeof schema>;

const DESCRIPTION = `Search arXiv and read paper records through arXiv's own API.

- search: arXiv syntax: ti: (title), au:, abs:, cat:; AND, OR, ANDNOT,
  "phrases", parentheses (ti:"attention is all you need" AND au:vaswani);
- category: newest papers of a category (cs.CL);
- paper: one paper by id (2301.01234v2) or URL: authors, versions, DOIs,
  abstract, HTML full text if any (read it with {tool:web_fetch_incisive});
  it goes on the research shelf.`;

function firstAuthor(e: ArxivEntry): string {
  if (e.authors.length === 0) return "";
  return e.authors.length === 1 ? e.authors[0].name : `${e.authors[0].name} et al.`;
}

function listAnswer(
  ctx: ToolContext,
  action: "search" | "category",
  echo: Trusted,
  entries: ArxivEntry[],
  total: number,
  offset: number,
  limitNote: Trusted | undefined,
  nextOffset: number,
  sort: Trusted | undefined,
): ToolResult {
  const fm = new Frontmatter();
  fm.set("api", trusted.text`arXiv`);
  fm.set("action", trusted.oneOf(ACTIONS, action));
  fm.set(action === "search" ? "query" : "category", echo);
  fm.set("sort", sort);
  fm.set("total_results", total);
  fm.set("results", entries.length);
  if (entries.length > 0) {
    fm.set("showing", trusted.text`${offset + 1}-${offset + entries.length}`);
  }
  if (limitNote) fm.append("note", limitNote);
  if (entries.length === 0) {
    fm.append(
      "hint",
      action === "search"
        ? (offset > 0 && total > 0
          ? trusted
            .text`offset=${offset} is past the last of ${total} results; use a smaller offset`
          : trusted
            .text`no papers matched; loosen the query (fewer terms, all: instead of ti:, OR between alternatives)`)
        : (offset > 0 && total > 0
          ? trusted
            .text`offset=${offset} is past the last of ${total} results; use a smaller offset`
          : trusted
            .text`no papers in this category; check the code (such as cs.CL, math.AG, hep-th) at https://arxiv.org/category_taxonomy`),
    );
    return ctx.respond({ frontmatter: fm });
  }
  fm.append("hint", trusted.text`action=paper with an id for a paper's full record`);
  if (nextOffset < total) {
    fm.append("hint", trusted.text`more results: call again with offset=${nextOffset}`);
  }
  const records = entries.map((e) => ({
    id: e.id,
    title: e.title,
    authors: firstAuthor(e),
    primary_category: e.primaryCategory ?? "",
    published: e.published?.slice(0, 10) ?? "",
  }));
  const rendered = renderRecords(records, ctx.defaultOutput, { name: "papers" });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text }],
    structured: rendered.structured,
  });
}

async function list(args: ArxivArgs, ctx: ToolContext): Promise<ToolResult> {
  const action = args.action as "search" | "category";
  const query = args.query.trim();
  let limitNote: Trusted | undefined;
  let limit = args.limit ?? DEFAULT_LIMIT;
  if (limit > MAX_LIMIT) {
    limitNote = trusted.text`limit=${limit} was lowered to ${MAX_LIMIT}, the most per call`;
    limit = MAX_LIMIT;
  }
  const offset = args.offset ?? 0;
  let search: string;
  let sortBy = args.sort_by;
  let sortOrder = args.sort_order;
  if (action === "search") {
    if (!query) {
      throw new ToolError(
        "search needs a query, such as 'ti:transformer AND au:vaswani' or 'all:\"graph neural network\"'",
      );
    }
    search = query;
  } else {
    if (!CATEGORY_PATTERN.test(query)) {
      throw new ToolError(
        `'${
          query.slice(0, 80)
        }' is not an arXiv category code; give one such as cs.CL, math.AG, hep-th or astro-ph.CO (all codes: https://arxiv.org/category_taxonomy)`,
      );
    }
    search = `cat:${query}`;
    sortBy ??= "submittedDate";
    sortOrder ??= "descending";
  }
  const feed = await queryArxiv(
    { search, start: offset, max: limit, sortBy, sortOrder },
    { signal: ctx.signal, maxBytes: DEFAULT_MAX_BYTES },
  );
  return listAnswer(
    ctx,
    action,
    trusted.echo(query, 300),
    feed.entries,
    feed.totalResults,
    offset,
    limitNote,
    offset + feed.entries.length,
    sortBy
      ? trusted.text`${trusted.oneOf(SORT_BY, sortBy)} ${
        trusted.oneOf(SORT_ORDER, sortOrder ?? "descending")
      }`
      : undefined,
  );
}

async function paper(args: ArxivArgs, ctx: ToolContext): Promise<ToolResult> {
  const id = parseArxivId(args.query);
  if (!id) {
    throw new ToolError(
      `'${args.query.trim().slice(0, 80)}' is not an arXiv identifier; ${ACCEPTED_ID_FORMS}`,
    );
  }
  const abs = `https://arxiv.org/abs/${id.id}`;
  const options = { signal: ctx.signal, maxBytes: DEFAULT_MAX_BYTES };
  // Well-formed ids take the page tools' path (cached, shared with interception);
  // other strings go to the API as they are, for it to judge.
  const { doc, cached } = id.strict
    ? await loadDocument(abs, options)
    : { doc: await loadPaperDocument(id, abs, options), cached: false };
  const fm = pageFrontmatter(pageUrl(abs), doc, cached, false, mcpHints(ctx, "page"));
  fm.set("action", trusted.oneOf(ACTIONS, "paper"));
  await shelveCitation(doc, fm);
  const versioned = doc.facts.find((f) => f.key === "arxiv_id")?.value?.toString() ?? id.id;
  const full = doc.facts.find((f) => f.key === "full_text");
  if (full) {
    fm.append(
      "hint",
      trusted.text`read the full text with ${toolRef(ctx, "web_fetch_incisive")} on ${
        trusted.url(`https://arxiv.org/html/${versioned}`)
      } (search=, section=, query= work there)`,
    );
  }
  const s2 = ctx.toolName("semantic_scholar");
  if (s2 && ARXIV_ID_PATTERN.test(versioned)) {
    fm.append(
      "see_also",
      trusted.text`ARXIV:${trusted.matching(versioned, ARXIV_ID_PATTERN)} with ${
        trusted.echo(s2, 64)
      } for citation counts`,
    );
  }
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: doc.markdown, title: doc.title || undefined }],
  });
}

function run(args: ArxivArgs, ctx: ToolContext): Promise<ToolResult> {
  return args.action === "paper" ? paper(args, ctx) : list(args, ctx);
}

/** The tool. */
export const arxivTool = defineTool({
  key: "arxiv",
  names: { desktop: "arxiv", code: "ArXiv" },
  title: "ArXiv",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: (args, ctx) => run(args, ctx),
});
