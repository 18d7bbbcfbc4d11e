/**
 * `semantic_scholar` (`SemanticScholar`): papers, citations and authors from
 * the Semantic Scholar Graph API. Registered only when the user accepted
 * the API licence (see `s2LicenceAccepted` in `lib/config.ts`).
 *
 * Actions: `search`, `paper`, `references`, `citations`, `author_search`,
 * `author`, `snippets`. Lists are records in the configured output format;
 * the paper detail is Markdown. Everything from the API is fenced; the
 * frontmatter carries validated ids, counts and URLs only. A paper lookup
 * puts the paper on the research shelf (keyed by its DOI); lists never do.
 *
 * @module
 */
import { z } from "zod";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import { currentShelf } from "../shelf/mod.ts";
import {
  AUTHOR_FIELDS,
  AUTHOR_PAPER_FIELDS,
  AUTHOR_SEARCH_FIELDS,
  authorPath,
  fetchPaperView,
  LINK_FIELDS,
  normalizeAuthorId,
  normalizePaperId,
  oneLine,
  paperPath,
  paperRecord,
  type S2Author,
  s2Get,
  type S2Paper,
  SEARCH_FIELDS,
} from "../sources/semantic_scholar.ts";
import { byAction, defineTool, type ToolContext } from "./registry.ts";
import { READS_THE_WEB } from "./page_view.ts";

const ACTIONS = [
  "search",
  "paper",
  "references",
  "citations",
  "author_search",
  "author",
  "snippets",
] as const;

const schema = z.object({
  action: z.enum(ACTIONS),
  query: z.string().min(1).max(2000).describe("words, a paper id or an author id"),
  limit: z.number().int().min(1).max(1000).optional().describe("results (default 10)"),
  offset: z.number().int().min(0).max(100000).optional().describe("results to skip"),
  fields: z.string().max(2000).optional().describe("Graph API fields to return, comma-separated"),
  paper_id: z.string().max(2000).optional().describe("snippets: only this paper"),
});

/** Arguments of the tool. */
export type SemanticScholarArgs = z.infer<typeof schema>;

const FIELDS_SHAPE = /^[A-Za-z0-9_.]+(?:,[A-Za-z0-9_.]+)*$/;
const SNIPPET_KINDS = ["title", "abstract", "body"] as const;
const TEXT_AVAILABILITY = ["fulltext", "abstract", "none"] as const;

function api(fm: Frontmatter, action: string): Frontmatter {
  fm.set("api", trusted.text`Semantic Scholar`);
  fm.set("action", trusted.oneOf(ACTIONS, action));
  return fm;
}

function checkFields(fields: string | undefined): string | undefined {
  if (fields === undefined) return undefined;
  const value = fields.replace(/\s+/g, "");
  if (!FIELDS_SHAPE.test(value)) {
    throw new ToolError(
      "fields must be a comma-separated list of Graph API field names, such as title,year,authors,externalIds",
    );
  }
  return value;
}

function limitOf(args: SemanticScholarArgs, max: number): number {
  const limit = args.limit ?? 10;
  if (limit > max) {
    throw new ToolError(`limit is at most ${max} for action=${args.action}; page with offset`);
  }
  return limit;
}

function listResponse(
  ctx: ToolContext,
  fm: Frontmatter,
  records: Record<string, unknown>[],
  title: string,
  name = "results",
): ToolResult {
  const rendered = renderRecords(records, ctx.defaultOutput, { name });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title }],
    structured: rendered.structured,
  });
}

interface Page<T> {
  total?: number;
  offset?: number;
  next?: number;
  data?: T[];
}

function pageNotes(fm: Frontmatter, offset: number, count: number, page: Page<unknown>): void {
  fm.set("offset", offset);
  fm.set("returned", count);
  if (typeof page.total === "number") fm.set("total", page.total);
  if (typeof page.next === "number" && count > 0) {
    fm.append("hint", trusted.text`more results: call again with offset=${page.next}`);
  }
}

async function search(args: SemanticScholarArgs, ctx: ToolContext): Promise<ToolResult> {
  const limit = limitOf(args, 100);
  const offset = args.offset ?? 0;
  const fields = checkFields(args.fields);
  const page = await s2Get<Page<S2Paper>>("/paper/search", [
    ["query", args.query],
    ["fields", fields ?? SEARCH_FIELDS],
    ["offset", offset],
    ["limit", limit],
  ], ctx.signal);
  const data = Array.isArray(page.data) ? page.data : [];
  const fm = api(new Frontmatter(), "search");
  fm.set(
    "source",
    trusted.url(`https://www.semanticscholar.org/search?q=${encodeURIComponent(args.query)}`),
  );
  fm.set("query", trusted.echo(args.query));
  pageNotes(fm, offset, data.length, page);
  fm.append(
    "hint",
    trusted.text`details of one paper: ${
      trusted.echo(ctx.toolName("semantic_scholar") ?? "semantic_scholar", 64)
    } action=paper with its paper_id (tracks it on the research shelf)`,
  );
  const records = fields ? data as Record<string, unknown>[] : data.map(paperRecord);
  return listResponse(ctx, fm, records, "Semantic Scholar search results");
}

async function paper(args: SemanticScholarArgs, ctx: ToolContext): Promise<ToolResult> {
  const id = normalizePaperId(args.query);
  const view = await fetchPaperView(id, ctx.signal);
  const fm = new Frontmatter();
  if (view.paperId) {
    fm.set("source", trusted.url(`https://www.semanticscholar.org/paper/${view.paperId}`));
  }
  api(fm, "paper");
  for (const fact of view.facts) {
    if (fact.key === "shelf") fm.set("shelf", fact.value);
    else if (["hint", "warning", "note", "see_also", "alert"].includes(fact.key)) {
      fm.append(fact.key as "note", fact.value as Trusted);
    } else fm.set(fact.key, fact.value);
  }
  if (args.fields !== undefined) {
    fm.append(
      "warning",
      trusted.text`fields was ignored: action=paper always returns its full detail`,
    );
  }
  if (view.citation) {
    const tracked = await currentShelf().track(view.citation);
    if (tracked.status) fm.set("shelf", tracked.status);
    if (tracked.note) fm.append("note", tracked.note);
  }
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: view.markdown }],
  });
}

interface Link {
  contexts?: string[] | null;
  citedPaper?: S2Paper | null;
  citingPaper?: S2Paper | null;
}

async function links(args: SemanticScholarArgs, ctx: ToolContext): Promise<ToolResult> {
  const direction = args.action === "references" ? "references" : "citations";
  const id = normalizePaperId(args.query);
  const limit = limitOf(args, 100);
  const offset = args.offset ?? 0;
  const fields = checkFields(args.fields);
  const page = await s2Get<Page<Link>>(`${paperPath(id)}/${direction}`, [
    ["fields", fields ?? LINK_FIELDS],
    ["offset", offset],
    ["limit", limit],
  ], ctx.signal);
  const data = Array.isArray(page.data) ? page.data : [];
  const fm = api(new Frontmatter(), direction);
  if (/^[0-9a-f]{40}$/.test(id)) {
    fm.set("source", trusted.url(`https://www.semanticscholar.org/paper/${id}`));
  }
  fm.set("paper", trusted.echo(id, 300));
  pageNotes(fm, offset, data.length, page);
  const records = data.map((link) => {
    const p = (direction === "references" ? link.citedPaper : link.citingPaper) ?? {};
    if (fields) {
      return link.contexts ? { ...p, contexts: link.contexts } : { ...p };
    }
    const record = paperRecord(p);
    const contexts = (link.contexts ?? []).slice(0, 2).map(oneLine).filter(Boolean);
    if (contexts.length) record.context = contexts.join(" … ");
    return record;
  });
  return listResponse(
    ctx,
    fm,
    records,
    direction === "references"
      ? "Papers this paper cites (Semantic Scholar)"
      : "Papers citing this paper (Semantic Scholar)",
  );
}

function authorRecord(a: S2Author): Record<string, unknown> {
  return {
    author_id: a.authorId ?? null,
    name: oneLine(a.name),
    affiliations: (a.affiliations ?? []).map(oneLine).filter(Boolean).join("; ") || null,
    h_index: a.hIndex ?? null,
    papers: a.paperCount ?? null,
    citations: a.citationCount ?? null,
  };
}

async function authorSearch(args: SemanticScholarArgs, ctx: ToolContext): Promise<ToolResult> {
  const limit = limitOf(args, 100);
  const offset = args.offset ?? 0;
  const fields = checkFields(args.fields);
  const page = await s2Get<Page<S2Author>>("/author/search", [
    ["query", args.query],
    ["fields", fields ?? AUTHOR_SEARCH_FIELDS],
    ["offset", offset],
    ["limit", limit],
  ], ctx.signal);
  const data = Array.isArray(page.data) ? page.data : [];
  const fm = api(new Frontmatter(), "author_search");
  fm.set("query", trusted.echo(args.query));
  pageNotes(fm, offset, data.length, page);
  fm.append(
    "hint",
    trusted.text`an author's profile and papers: action=author with the author_id`,
  );
  const records = fields ? data as Record<string, unknown>[] : data.map(authorRecord);
  return listResponse(ctx, fm, records, "Semantic Scholar authors");
}

async function author(args: SemanticScholarArgs, ctx: ToolContext): Promise<ToolResult> {
  const id = normalizeAuthorId(args.query);
  const limit = limitOf(args, 100);
  const offset = args.offset ?? 0;
  const fields = checkFields(args.fields);
  const record = await s2Get<S2Author>(
    authorPath(id),
    [["fields", fields ?? AUTHOR_FIELDS]],
    ctx.signal,
  );
  // A fields list that asks for papers brings them with the record: no second request.
  let papers: S2Paper[];
  let next: number | undefined;
  if (Array.isArray(record.papers)) {
    papers = record.papers.slice(offset, offset + limit);
    if (record.papers.length > offset + limit) next = offset + limit;
  } else {
    const page = await s2Get<Page<S2Paper>>(`${authorPath(id)}/papers`, [
      ["fields", AUTHOR_PAPER_FIELDS],
      ["offset", offset],
      ["limit", limit],
    ], ctx.signal);
    papers = Array.isArray(page.data) ? page.data : [];
    next = typeof page.next === "number" ? page.next : undefined;
  }
  const fm = api(new Frontmatter(), "author");
  fm.set("source", trusted.url(`https://www.semanticscholar.org/author/${id}`));
  fm.set("author_id", trusted.matching(id, /^\d{1,12}$/));
  if (typeof record.paperCount === "number") fm.set("paper_count", record.paperCount);
  if (typeof record.citationCount === "number") fm.set("citation_count", record.citationCount);
  if (typeof record.hIndex === "number") fm.set("h_index", record.hIndex);
  fm.set("offset", offset);
  fm.set("returned", papers.length);
  if (next !== undefined) {
    fm.append("hint", trusted.text`more papers: call again with offset=${next}`);
  }
  const lines = [`# ${oneLine(record.name) || "(unnamed author)"}`, ""];
  const affils = (record.affiliations ?? []).map(oneLine).filter(Boolean);
  if (affils.length) lines.push(`**Affiliations:** ${affils.join("; ")}`, "");
  const stats: string[] = [];
  if (typeof record.paperCount === "number") stats.push(`**Papers:** ${record.paperCount}`);
  if (typeof record.citationCount === "number") {
    stats.push(`**Citations:** ${record.citationCount}`);
  }
  if (typeof record.hIndex === "number") stats.push(`**h-index:** ${record.hIndex}`);
  if (stats.length) lines.push(stats.join(" | "), "");
  if (record.homepage) lines.push(`**Homepage:** ${oneLine(record.homepage)}`, "");
  const sorted = [...papers].sort((a, b) => (b.citationCount ?? 0) - (a.citationCount ?? 0));
  const rendered = renderRecords(
    sorted.map((p) => ({
      paper_id: p.paperId ?? null,
      title: oneLine(p.title),
      year: p.year ?? null,
      venue: oneLine(p.venue) || null,
      citations: p.citationCount ?? null,
    })),
    ctx.defaultOutput,
    { name: "papers" },
  );
  return ctx.respond({
    frontmatter: fm,
    fences: [
      { content: lines.join("\n").trimEnd() },
      { content: rendered.text, title: "Papers, most cited first (this page)" },
    ],
    structured: rendered.structured,
  });
}

interface Snippet {
  snippet?: {
    text?: string | null;
    snippetKind?: string | null;
    section?: string | null;
  } | null;
  score?: number | null;
  paper?: { corpusId?: string | number | null; title?: string | null } | null;
}

async function snippets(args: SemanticScholarArgs, ctx: ToolContext): Promise<ToolResult> {
  const limit = limitOf(args, 1000);
  const fm = api(new Frontmatter(), "snippets");
  fm.set("query", trusted.echo(args.query));
  if (args.fields !== undefined) {
    fm.append("warning", trusted.text`fields was ignored: snippets have a fixed shape`);
  }
  if (args.offset) {
    fm.append("warning", trusted.text`offset was ignored: snippet search has no paging`);
  }
  let scope: string | undefined;
  if (args.paper_id !== undefined) {
    scope = normalizePaperId(args.paper_id);
    const check = await s2Get<S2Paper>(
      paperPath(scope),
      [["fields", "textAvailability"]],
      ctx.signal,
    );
    const availability = (TEXT_AVAILABILITY as readonly string[]).includes(
        check.textAvailability ?? "",
      )
      ? check.textAvailability!
      : "unknown";
    if (availability !== "fulltext") {
      throw new ToolError(
        `Full text of this paper is not available on Semantic Scholar (textAvailability: ${availability}), ` +
          "so there are no snippets to search. Use action=paper for its abstract and TL;DR, " +
          "or its open-access PDF when the paper detail lists one",
      );
    }
    fm.set("paper", trusted.echo(scope, 300));
  }
  const page = await s2Get<Page<Snippet>>("/snippet/search", [
    ["query", args.query],
    ["limit", limit],
    ["paperIds", scope],
  ], ctx.signal);
  const data = Array.isArray(page.data) ? page.data : [];
  fm.set("returned", data.length);
  fm.append(
    "hint",
    scope
      ? trusted
        .text`snippets are passages of the paper's full text; action=paper gives its metadata`
      : trusted.text`narrow to one paper with paper_id=<id>`,
  );
  const records = data.map((s) => {
    const kind = s.snippet?.snippetKind ?? "";
    const record: Record<string, unknown> = {};
    if (!scope) {
      record.corpus_id = s.paper?.corpusId ?? null;
      record.paper = oneLine(s.paper?.title);
    }
    record.section = oneLine(s.snippet?.section) || null;
    record.kind = (SNIPPET_KINDS as readonly string[]).includes(kind) ? kind : "other";
    record.text = oneLine(s.snippet?.text);
    return record;
  });
  return listResponse(ctx, fm, records, "Semantic Scholar snippets");
}

/** The tool. */
export const semanticScholar = defineTool({
  key: "semantic_scholar",
  names: { desktop: "semantic_scholar", code: "SemanticScholar" },
  title: "SemanticScholar",
  description: `Semantic Scholar's academic graph: papers, citations, authors, full-text passages.

- search: words; papers with year, authors, venue, citations;
- paper: an id (S2 id or URL, DOI:, ARXIV:, PMID:): authors, PDF, TL;DR, abstract, BibTeX (goes on the research shelf);
- references / citations: a paper id;
- author_search: a name; author: an author id;
- snippets: words; passages from full texts (paper_id= for one paper).`,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: byAction<SemanticScholarArgs>({
    search,
    paper,
    references: links,
    citations: links,
    author_search: authorSearch,
    author,
    snippets,
  }),
});
