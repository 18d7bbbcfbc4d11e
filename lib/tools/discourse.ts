/**
 * `discourse` (`Discourse`): Discourse forums through their JSON API.
 *
 * - `topic`: a topic (URL, or id with `base_url`) as a Document: the raw
 *   Markdown of each post, one section per post number; kept in the page
 *   cache under the topic URL, so the page tools' `section=` and `search=`
 *   read it again without a request;
 * - `search`: posts matching a query on the forum, as records in the
 *   configured output format;
 * - `latest`: the forum's latest topics, as records.
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
import { cacheKey, pageCache } from "../sources/router.ts";
import {
  forumBase,
  latestTopics,
  loadTopic,
  parseTopicQuery,
  searchForum,
  topicUrl,
} from "../sources/discourse.ts";
import { DEFAULT_MAX_BYTES } from "../net/fetch.ts";
import { mcpHints, pageFrontmatter, pageUrl, READS_THE_WEB } from "./page_view.ts";
import { byAction, defineTool, type ToolContext } from "./registry.ts";

const ACTIONS = ["topic", "search", "latest"] as const;

const schema = z.object({
  action: z.enum(ACTIONS),
  query: z.string().max(500).optional().describe("topic: URL, or id with base_url; search: words"),
  base_url: z.string().max(500).optional().describe(
    "the forum (https://meta.discourse.org); for search, latest and a bare id",
  ),
  limit: z.number().int().min(1).max(50).optional().describe(
    "search, latest: results (default 10)",
  ),
});

type Args = z.infer<typeof schema>;

function baseOf(args: Args): string {
  if (!args.base_url?.trim()) {
    throw new ToolError(
      `${args.action} needs base_url: the forum's address, like https://meta.discourse.org`,
    );
  }
  return forumBase(args.base_url!);
}

async function topicAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const query = args.query?.trim();
  if (!query) {
    throw new ToolError(
      "topic needs query: the topic's URL (https://forum.example/t/slug/123) or its id with base_url",
    );
  }
  const ref = parseTopicQuery(query, args.base_url?.trim() || undefined);
  const url = topicUrl(ref);
  const key = cacheKey(url);
  let doc = pageCache().get(key);
  const cached = doc !== undefined;
  if (!doc) {
    doc = await loadTopic(ref, { maxBytes: DEFAULT_MAX_BYTES, signal: ctx.signal });
    pageCache().set(key, doc);
  }
  const fm = pageFrontmatter(pageUrl(url), doc, cached, false, mcpHints(ctx, "page"));
  return ctx.respond({ frontmatter: fm, fences: [{ content: doc.markdown }] });
}

async function searchAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const base = baseOf(args);
  const query = (args.query ?? "").replace(/\s+/g, " ").trim();
  if (query.length < 2) {
    throw new ToolError("search needs query: at least two characters to search the forum for");
  }
  const limit = args.limit ?? 10;
  const hits = await searchForum(base, query, limit, ctx.signal);
  const fm = new Frontmatter()
    .set("source", trusted.url(base))
    .set("api", trusted.text`Discourse`)
    .set("action", trusted.oneOf(ACTIONS, "search"))
    .set("query", trusted.echo(query, 200))
    .set("showing", hits.length);
  if (hits.length === 0) {
    fm.append("note", trusted.text`no posts match; try other or fewer words`);
    return ctx.respond({ frontmatter: fm });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  fm.append(
    "hint",
    trusted.text`read a topic with action=topic and a result's url (it opens at that post)`,
  );
  const rendered = renderRecords(hits.map((h) => ({ ...h })), format, {
    columns: ["topic", "author", "post", "replies", "url", "blurb"],
    name: "results",
  });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title: "Forum search results" }],
    structured: rendered.structured,
  });
}

async function latestAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const base = baseOf(args);
  const limit = args.limit ?? 10;
  const topics = await latestTopics(base, limit, ctx.signal);
  const fm = new Frontmatter()
    .set("source", trusted.url(base))
    .set("api", trusted.text`Discourse`)
    .set("action", trusted.oneOf(ACTIONS, "latest"))
    .set("showing", topics.length);
  if (topics.length === 0) {
    fm.append("note", trusted.text`the forum lists no public topics`);
    return ctx.respond({ frontmatter: fm });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  fm.append("hint", trusted.text`read a topic with action=topic and its url`);
  const rendered = renderRecords(topics.map((t) => ({ ...t })), format, {
    columns: ["title", "posts", "replies", "views", "last_post", "url"],
    name: "topics",
  });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title: "Latest topics" }],
    structured: rendered.structured,
  });
}

const DESCRIPTION = `Discourse forums through their JSON API.

- topic: query is the topic URL, or an id with base_url; each post is a
  section named by its number, 100 posts a page;
- search: query in Discourse syntax, at base_url;
- latest: the newest topics at base_url.`;

/** The tool declaration. */
export const discourse = defineTool({
  key: "discourse",
  names: { desktop: "discourse", code: "Discourse" },
  title: "Discourse",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: byAction<Args>({ topic: topicAction, search: searchAction, latest: latestAction }),
});
