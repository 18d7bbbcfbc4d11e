/**
 * `ietf` (`IETF`): RFCs, Internet-Drafts and subseries from the IETF's own
 * services.
 *
 * - `rfc`: one RFC's record (RFC Editor JSON): status, relations,
 *   subseries, DOI, formats, a pointer to the rendered text; tracked on
 *   the research shelf;
 * - `search`: RFCs by title words on the Datatracker, with status and
 *   working-group filters; records in the configured output format;
 * - `draft`: one Internet-Draft's Datatracker record;
 * - `subseries`: the RFCs of an STD, BCP or FYI document (BibXML).
 *
 * `rfc` and `draft` load through the router, so they share the page cache
 * with the interception of the same URLs by the page tools.
 *
 * @module
 */
import { z } from "zod";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { trusted } from "../trust.ts";
import { OUTPUT_FORMATS } from "../config.ts";
import { loadDocument } from "../sources/router.ts";
import {
  draftUrl,
  fetchSubseries,
  parseDraftName,
  parseRfcNumber,
  parseSubseries,
  rfcUrl,
  searchRfcs,
  STATUS_FILTERS,
  type StatusFilter,
  subseriesInfoUrl,
} from "../sources/ietf/mod.ts";
import { DEFAULT_MAX_BYTES } from "../net/fetch.ts";
import { mcpHints, pageFrontmatter, pageUrl, READS_THE_WEB, shelveCitation } from "./page_view.ts";
import { byAction, defineTool, type ToolContext } from "./registry.ts";

const ACTIONS = ["rfc", "search", "draft", "subseries"] as const;
const STATUS_KEYS = Object.keys(STATUS_FILTERS) as StatusFilter[];
const WG = /^[a-z0-9][a-z0-9-]{0,39}$/;

const schema = z.object({
  action: z.enum(ACTIONS),
  query: z.string().max(500).describe(
    "rfc: 9110, DOI or URL; search: title words; draft: name or URL; subseries: 'BCP 14'",
  ),
  limit: z.number().int().min(1).max(50).optional().describe("search: results (default 10)"),
  offset: z.number().int().min(0).max(100_000).optional().describe("search: results to skip"),
  status: z.enum(STATUS_KEYS as [StatusFilter, ...StatusFilter[]]).optional().describe(
    "search: RFC status (ps, std, bcp, inf, exp, hist)",
  ),
  wg: z.string().max(40).optional().describe("search: working group (httpbis)"),
});

type Args = z.infer<typeof schema>;

async function loadRecord(
  url: string,
  ctx: ToolContext,
  amend?: (fm: Frontmatter) => void,
): Promise<ToolResult> {
  const { doc, cached } = await loadDocument(url, {
    maxBytes: DEFAULT_MAX_BYTES,
    signal: ctx.signal,
  });
  const fm = pageFrontmatter(pageUrl(url), doc, cached, false, mcpHints(ctx, "page"));
  await shelveCitation(doc, fm);
  amend?.(fm);
  return ctx.respond({ frontmatter: fm, fences: [{ content: doc.markdown, title: doc.title }] });
}

async function rfcAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const n = parseRfcNumber(args.query);
  return await loadRecord(rfcUrl(n), ctx);
}

async function draftAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const ref = parseDraftName(args.query);
  const asked = ref.rev;
  return await loadRecord(draftUrl(ref.name), ctx, (fm) => {
    const latest = fm.toRecord().revision;
    if (asked === undefined || latest === undefined || latest === asked) return;
    const rev = trusted.matching(asked, /^\d{2}$/);
    fm.append(
      "note",
      trusted.text`this is the record of the latest revision; revision ${rev}'s text is at ${
        trusted.url(`https://www.ietf.org/archive/id/${ref.name}-${asked}.html`)
      }`,
    );
  });
}

async function searchAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const title = args.query.replace(/\s+/g, " ").trim();
  if (title.length < 2) {
    throw new ToolError(
      "search needs at least two characters of an RFC's title in query (e.g. 'HTTP semantics'); for one RFC by number use action=rfc",
    );
  }
  const wg = args.wg?.trim().toLowerCase() || undefined;
  if (wg !== undefined && !WG.test(wg)) {
    throw new ToolError(
      `wg must be a working group acronym (letters, digits and hyphens, like httpbis or quic); got '${
        args.wg!.slice(0, 60)
      }'`,
    );
  }
  const limit = args.limit ?? 10;
  const offset = args.offset ?? 0;
  const results = await searchRfcs({ title, limit, offset, status: args.status, wg }, ctx.signal);
  const fm = new Frontmatter()
    .set("api", trusted.text`IETF (Datatracker)`)
    .set("action", trusted.oneOf(ACTIONS, "search"))
    .set("query", trusted.echo(title, 200));
  if (args.status) fm.set("status", trusted.oneOf(STATUS_KEYS, args.status));
  if (wg) fm.set("wg", trusted.matching(wg, WG));
  fm.set("total_results", results.total);
  fm.set("offset", offset);
  fm.set("showing", results.hits.length);
  if (results.hits.length === 0) {
    fm.append(
      "note",
      results.total > 0
        ? trusted.text`no results at offset ${offset}; there are ${results.total} in all`
        : trusted
          .text`no RFC title contains these words${
          args.status || wg ? trusted.text` with these filters` : trusted.text``
        }; try fewer or other words, or drop the filters`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  const rendered = renderRecords(
    results.hits.map((h) => ({
      rfc: `RFC ${h.rfc}`,
      title: h.title,
      status: h.status ?? null,
      pages: h.pages ?? null,
      url: h.url,
    })),
    format,
    { columns: ["rfc", "title", "status", "pages", "url"] },
  );
  const next = offset + results.hits.length;
  if (next < results.total) {
    fm.append(
      "hint",
      trusted.text`${results.total - next} more results: call again with offset=${next}`,
    );
  }
  fm.append(
    "hint",
    trusted
      .text`use action=rfc with a number for an RFC's full record (status, relations, abstract)`,
  );
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title: "RFC search results" }],
    structured: rendered.structured,
  });
}

async function subseriesAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const ref = parseSubseries(args.query);
  const id = trusted.matching(`${ref.series} ${ref.number}`, /^(?:STD|BCP|FYI) [1-9]\d{0,3}$/);
  const members = await fetchSubseries(ref, ctx.signal);
  const fm = new Frontmatter()
    .set("source", trusted.url(subseriesInfoUrl(ref)))
    .set("api", trusted.text`IETF (BibXML)`)
    .set("subseries", id)
    .set("member_count", members.length);
  if (members.length === 0) {
    fm.append(
      "note",
      trusted
        .text`${id} has no RFC members in BibXML (a number reserved or retired); see the source page`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  fm.set("members", members.map((m) => trusted.matching(`RFC${m.rfc}`, /^RFC[1-9]\d{0,4}$/)));
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  fm.append(
    "hint",
    trusted.text`read a member with action=rfc and its number (its status, relations and text)`,
  );
  const rendered = renderRecords(
    members.map((m) => ({
      rfc: `RFC ${m.rfc}`,
      title: m.title,
      date: m.date || null,
      authors: m.authors.join("; "),
      url: rfcUrl(m.rfc),
    })),
    format,
    { columns: ["rfc", "title", "date", "authors", "url"], name: "members" },
  );
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title: `${id}` }],
    structured: rendered.structured,
  });
}

const DESCRIPTION = `IETF documents through the RFC Editor and Datatracker.

- rfc: 9110, 'RFC 9110', its DOI or URL: status, working group, abstract,
  obsoletes/updates, errata, full_text (read it with
  {tool:web_fetch_incisive}); it goes on the research shelf;
- search: RFCs by title words (status=, wg=);
- draft: an Internet-Draft by name or URL;
- subseries: the RFCs of 'STD 97' or 'BCP 14'.`;

/** The tool declaration. */
export const ietf = defineTool({
  key: "ietf",
  names: { desktop: "ietf", code: "IETF" },
  title: "IETF",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: byAction<Args>({
    rfc: rfcAction,
    search: searchAction,
    draft: draftAction,
    subseries: subseriesAction,
  }),
});
