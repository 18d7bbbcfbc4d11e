/**
 * `kagi_search` (`KagiSearch`): web search through Kagi, results as records
 * (title, URL, snippet, date) in the configured output format, never
 * summarised.
 *
 * - Workflows: `search`, `images`, `videos`, `news`, `podcasts` (Search API
 *   v1), `enrich_web` and `enrich_news` (Kagi's own non-commercial web and
 *   news indexes, the Enrichment API) and `small_web` (the Small Web feed of
 *   recent posts from personal sites; no query, no key).
 * - Several queries in one call: one group of results per query; a query
 *   that fails is reported in its group and the others still answer.
 * - Every argument is checked before any request: dates are `YYYY-MM-DD`,
 *   regions and lenses come from closed lists (errors list the valid values).
 * - Without a key the tool answers with how to get one, and sends nothing.
 *
 * The resources `kagi://regions` and `kagi://lenses` describe the valid
 * values ({@link KAGI_RESOURCES}).
 *
 * @module
 */
import { z } from "zod";
import { OUTPUT_FORMATS, refusedCredentials } from "../config.ts";
import { renderRecords } from "../envelope/formats.ts";
import { envelopeReady, Frontmatter } from "../envelope/frontmatter.ts";
import type { FencedPart, ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import {
  checkDate,
  checkLens,
  checkRegion,
  enrich,
  KAGI_KEY_PAGE,
  KAGI_SEARCH_URL,
  kagiApiKey,
  KagiError,
  type KagiResults,
  LENSES,
  REGIONS,
  SEARCH_WORKFLOWS,
  searchV1,
  smallWeb,
  smallWebUrl,
  type Workflow,
  WORKFLOWS,
} from "../sources/kagi.ts";
import { READS_THE_WEB, toolRef } from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";

const MAX_QUERIES = 10;

const schema = z.object({
  query: z.union([
    z.string().max(2000),
    z.array(z.string().max(2000)).min(1).max(MAX_QUERIES),
  ]).optional().describe(`the search, or a list of up to ${MAX_QUERIES}; not for small_web`),
  workflow: z.enum(WORKFLOWS).optional(),
  limit: z.number().int().min(1).max(1024).optional().describe("results per query (default 5)"),
  page: z.number().int().min(1).max(10).optional().describe("page, 1 to 10"),
  lens: z.string().max(300).optional().describe(
    "lens: a built-in slug (programming), an id or a kagi.com URL",
  ),
  region: z.string().max(20).optional().describe("region code (us, gb, de)"),
  after: z.string().max(40).optional().describe("from this date (YYYY-MM-DD)"),
  before: z.string().max(40).optional().describe("up to this date (YYYY-MM-DD)"),
});

type Args = z.infer<typeof schema>;

/** Arguments after the checks. */
interface Checked {
  queries: string[];
  workflow: Workflow;
  limit: number;
  page?: number;
  lens?: string;
  region?: string;
  after?: string;
  before?: string;
}

const V1 = SEARCH_WORKFLOWS as readonly string[];

function check(args: Args): Checked {
  const workflow: Workflow = args.workflow ?? "search";
  const raw = args.query === undefined ? [] : Array.isArray(args.query) ? args.query : [args.query];
  const queries = raw.map((q) => q.trim());
  if (workflow !== "small_web") {
    if (queries.length === 0 || queries.some((q) => q === "")) {
      throw new ToolError(
        "query is required (a non-empty search, or a list of them); only workflow=small_web runs without one",
      );
    }
  }
  const v1 = V1.includes(workflow);
  const unsupported = (name: string, value: unknown) => {
    if (value !== undefined) {
      throw new ToolError(
        `${name} works only with the v1 workflows (${
          SEARCH_WORKFLOWS.join(", ")
        }); drop it for workflow=${workflow}`,
      );
    }
  };
  if (!v1) {
    unsupported("page", args.page);
    unsupported("lens", args.lens);
    unsupported("region", args.region);
    unsupported("after", args.after);
    unsupported("before", args.before);
  }
  const out: Checked = { queries, workflow, limit: args.limit ?? 5 };
  if (args.page !== undefined) out.page = args.page;
  if (args.lens !== undefined) out.lens = checkLens(args.lens);
  if (args.region !== undefined) out.region = checkRegion(args.region.trim());
  if (args.after !== undefined) out.after = checkDate("after", args.after.trim());
  if (args.before !== undefined) out.before = checkDate("before", args.before.trim());
  if (out.after && out.before && out.after > out.before) {
    throw new ToolError(
      `after (${out.after}) is later than before (${out.before}); swap them or widen the range`,
    );
  }
  return out;
}

function noKey(ctx: ToolContext, workflow: Workflow): ToolResult {
  const fm = new Frontmatter()
    .set("api", trusted.text`Kagi`)
    .set("workflow", trusted.oneOf(WORKFLOWS, workflow))
    .set(
      "status",
      refusedCredentials().length > 0
        ? trusted.text`the API key file was refused for its mode (see warning); nothing was sent`
        : trusted.text`no API key configured; nothing was sent`,
    );
  fm.append(
    "note",
    trusted
      .text`Kagi search needs an API key (searches are billed to the key's account): create one at ${
      trusted.url(KAGI_KEY_PAGE)
    }, then set KAGI_API_KEY in the server's environment or write the key alone into ~/.config/parkour/kagi_api_key (chmod 600) and restart the server`,
  );
  fm.append(
    "hint",
    trusted.text`meanwhile workflow=small_web needs no key; or use the client's own ${
      toolRef(ctx, "web_search")
    }`,
  );
  return ctx.respond({ frontmatter: fm });
}

interface Group {
  query: string;
  outcome: KagiResults | KagiError;
}

async function runOne(c: Checked, query: string, key: string, signal: AbortSignal): Promise<Group> {
  try {
    let outcome: KagiResults;
    if (c.workflow === "enrich_web" || c.workflow === "enrich_news") {
      outcome = await enrich(
        c.workflow === "enrich_web" ? "web" : "news",
        query,
        c.limit,
        key,
        signal,
      );
    } else if (c.workflow === "small_web") {
      outcome = await smallWeb(c.limit, signal);
    } else {
      outcome = await searchV1(
        {
          query,
          workflow: c.workflow as typeof SEARCH_WORKFLOWS[number],
          limit: c.limit,
          page: c.page,
          lens: c.lens,
          region: c.region,
          after: c.after,
          before: c.before,
        },
        key,
        signal,
      );
    }
    return { query, outcome };
  } catch (error) {
    if (error instanceof KagiError) return { query, outcome: error };
    throw error;
  }
}

function records(r: KagiResults, offset: number): Record<string, unknown>[] {
  return r.results.map((x, i) => ({
    rank: offset + i + 1,
    title: x.title,
    url: x.url,
    snippet: x.snippet,
    date: x.date ?? null,
  }));
}

const COLUMNS = ["rank", "title", "url", "snippet", "date"];

function filterWarnings(fm: Frontmatter, c: Checked): void {
  if (c.lens && c.workflow !== "search") {
    fm.append(
      "warning",
      trusted.text`lenses are reliable only with workflow=search; with workflow=${
        trusted.oneOf(WORKFLOWS, c.workflow)
      } Kagi may ignore the lens`,
    );
  }
  if (c.workflow === "images" && (c.region || c.after || c.before)) {
    fm.append(
      "warning",
      trusted.text`Kagi's image search may ignore region, after and before`,
    );
  }
  const lens = c.lens ? LENSES.find((l) => l.slug === c.lens) : undefined;
  if (lens?.activation) {
    fm.append(
      "note",
      trusted.text`the lens '${
        trusted.oneOf(LENSES.map((l) => l.slug), lens.slug)
      }' must be switched on in the Kagi account's lens settings, or Kagi ignores it`,
    );
  }
}

function activeFilters(c: Checked): Trusted | undefined {
  const parts: Trusted[] = [];
  if (c.lens) parts.push(trusted.text`lens=${trusted.echo(c.lens, 80)}`);
  if (c.region) parts.push(trusted.text`region=${trusted.oneOf(Object.keys(REGIONS), c.region)}`);
  if (c.after) parts.push(trusted.text`after=${trusted.isoDate(c.after)}`);
  if (c.before) parts.push(trusted.text`before=${trusted.isoDate(c.before)}`);
  if (parts.length === 0) return undefined;
  return trusted.echo(parts.map(String).join(", "), 300);
}

async function handler(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const c = check(args);
  const key = c.workflow === "small_web" ? "" : kagiApiKey();
  if (key === undefined) return noKey(ctx, c.workflow);
  const queries = c.workflow === "small_web" ? [""] : c.queries;

  // A few at a time: each search is billed, and Kagi rate-limits bursts.
  const groups: Group[] = [];
  for (let i = 0; i < queries.length; i += 3) {
    const batch = queries.slice(i, i + 3);
    groups.push(...await Promise.all(batch.map((q) => runOne(c, q, key, ctx.signal))));
    await ctx.progress(groups.length, queries.length);
  }

  const failed = groups.filter((g) => g.outcome instanceof KagiError);
  if (failed.length === groups.length) {
    const first = failed[0].outcome as KagiError;
    const message = groups.length === 1
      ? first.message
      : `all ${groups.length} queries failed; the first: ${first.message}`;
    throw new ToolError(
      message,
      first.upstream ? { status: first.status, body: first.upstream } : undefined,
    );
  }

  const offset = c.page ? (c.page - 1) * c.limit : 0;
  const fm = new Frontmatter()
    .set(
      "source",
      trusted.url(c.workflow === "small_web" ? smallWebUrl(c.limit) : KAGI_SEARCH_URL),
    )
    .set(
      "api",
      c.workflow.startsWith("enrich_")
        ? trusted.text`Kagi Enrichment API`
        : c.workflow === "small_web"
        ? trusted.text`Kagi Small Web`
        : trusted.text`Kagi Search API v1`,
    )
    .set("workflow", trusted.oneOf(WORKFLOWS, c.workflow));
  if (c.workflow !== "small_web") {
    if (queries.length === 1) fm.set("query", trusted.echo(queries[0], 300));
    else fm.set("queries", queries.length);
  }
  if (c.page) fm.set("page", c.page);
  if (c.lens) fm.set("lens", trusted.echo(c.lens, 80));
  if (c.region) fm.set("region", trusted.oneOf(Object.keys(REGIONS), c.region));
  if (c.after) fm.set("after", trusted.isoDate(c.after));
  if (c.before) fm.set("before", trusted.isoDate(c.before));
  const total = groups.reduce(
    (n, g) => n + (g.outcome instanceof KagiError ? 0 : g.outcome.results.length),
    0,
  );
  fm.set("results", total);
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  filterWarnings(fm, c);

  const fences: FencedPart[] = [];
  const structuredGroups: Record<string, unknown>[] = [];
  groups.forEach((g, i) => {
    const label = queries.length > 1 ? `query ${i + 1}: ${g.query}` : g.query || "Small Web";
    if (g.outcome instanceof KagiError) {
      fm.append(
        "warning",
        trusted.text`query ${i + 1} (${trusted.echo(g.query, 120)}) failed: ${
          trusted.echo(g.outcome.message, 400)
        }`,
      );
      if (g.outcome.upstream) {
        fences.push({ title: `${label} (failed)`, content: g.outcome.upstream });
      }
      structuredGroups.push({ query: g.query, error: g.outcome.message });
      return;
    }
    const rows = records(g.outcome, offset);
    if (rows.length === 0) {
      fences.push({ title: label, content: "No results." });
    } else {
      const rendered = renderRecords(rows, format, { columns: COLUMNS });
      let content = rendered.text;
      if (g.outcome.related.length > 0) {
        content += `\n\nRelated searches: ${g.outcome.related.join(", ")}`;
      }
      fences.push({ title: label, content });
    }
    structuredGroups.push({ query: g.query, results: rows, related: g.outcome.related });
  });

  if (total > 0) {
    fm.append(
      "hint",
      trusted.text`read a result with ${
        toolRef(ctx, "web_fetch_sections")
      } to see its outline, or ${
        toolRef(ctx, "web_fetch_incisive")
      } for its text (section=, search=, query= narrow it)`,
    );
    if (
      c.workflow !== "small_web" &&
      groups.some((g) => !(g.outcome instanceof KagiError) && g.outcome.results.length === c.limit)
    ) {
      fm.append(
        "hint",
        V1.includes(c.workflow)
          ? trusted.text`more results: raise limit or call again with page=${(c.page ?? 1) + 1}`
          : trusted.text`more results: raise limit`,
      );
    }
  } else {
    const filters = activeFilters(c);
    fm.append(
      "hint",
      filters
        ? trusted
          .text`no results with the active filters (${filters}); retry without the most restrictive one`
        : trusted
          .text`no results; try fewer or broader words, or drop operators such as site: or quotes`,
    );
  }
  return ctx.respond({
    frontmatter: fm,
    fences,
    structured: format === "json" ? { groups: structuredGroups } : undefined,
  });
}

const DESCRIPTION = `Web search through Kagi: ranked results (title, URL, snippet, date) as
records, never summarised. query takes Kagi's operators (site:, "phrase",
-term), or a list of queries. workflow: search (default), images, videos,
news, podcasts, enrich_web / enrich_news (small sites), small_web (recent
Small Web posts). Read results with
{tool:web_fetch_sections} or {tool:web_fetch_incisive}.{resources}`;

/** The tool declaration. */
export const kagiSearch = defineTool({
  key: "kagi_search",
  names: { desktop: "kagi_search", code: "KagiSearch" },
  title: "KagiSearch",
  description: {
    desktop: DESCRIPTION.replace("{resources}", ""),
    code: DESCRIPTION.replace(
      "{resources}",
      "\nThe resources kagi://regions and kagi://lenses list the valid values.",
    ),
  },
  inputSchema: schema,
  annotations: READS_THE_WEB,
  unconfigured: {
    // A malformed key counts as set: the call then says what is wrong with it (never at start).
    configured: () => {
      try {
        return kagiApiKey() !== undefined;
      } catch {
        return true;
      }
    },
    description:
      "Web search through Kagi; no Kagi API key is set (KAGI_API_KEY), so only workflow=small_web (recent Small Web posts) works: other calls say how to add a key.",
  },
  handler,
});

/** A read-only resource the server registers. */
export interface KagiResource {
  /** Registration name. */
  name: string;
  /** URI. */
  uri: string;
  /** Title. */
  title: string;
  /** Description. */
  description: string;
  /** Media type. */
  mimeType: string;
  /** The text. */
  text(): Promise<string>;
}

async function regionsText(): Promise<string> {
  await envelopeReady();
  const fm = new Frontmatter().set("regions", Object.keys(REGIONS).length);
  fm.append(
    "hint",
    trusted.text`pass a code as region= to kagi_search; codes are lowercase and case-sensitive`,
  );
  const body = renderRecords(
    Object.entries(REGIONS).map(([code, name]) => ({ code, region: name })),
    "markdown",
    { columns: ["code", "region"] },
  ).text;
  return `${fm.render({ toolName: (k) => k })}\n\n${body}\n`;
}

async function lensesText(): Promise<string> {
  await envelopeReady();
  const fm = new Frontmatter().set("lenses", LENSES.length);
  fm.append(
    "hint",
    trusted
      .text`pass a slug as lens= to kagi_search (exact, lowercase, spaces kept); a shareable lens id or a https://kagi.com/lenses/<id> URL works too`,
  );
  const body = renderRecords(
    LENSES.map((l) => ({
      lens: l.slug,
      searches: l.about,
      availability: l.activation ? "switch on in Kagi's lens settings first" : "always on",
    })),
    "markdown",
    { columns: ["lens", "searches", "availability"] },
  ).text;
  return `${fm.render({ toolName: (k) => k })}\n\n${body}\n`;
}

/** The `kagi://regions` and `kagi://lenses` resources. */
export const KAGI_RESOURCES: readonly KagiResource[] = [
  {
    name: "kagi_regions",
    uri: "kagi://regions",
    title: "Kagi regions",
    description: "The region codes kagi_search accepts as region= (lowercase).",
    mimeType: "text/markdown",
    text: regionsText,
  },
  {
    name: "kagi_lenses",
    uri: "kagi://lenses",
    title: "Kagi lenses",
    description: "Kagi's built-in lenses for kagi_search's lens=, and which need switching on.",
    mimeType: "text/markdown",
    text: lensesText,
  },
];
