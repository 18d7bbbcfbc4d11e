/**
 * Discourse forums through their JSON API.
 *
 * A Discourse forum is recognised after a generic fetch: its pages carry
 * the response header `x-discourse-route` (`topics/show` for a topic). When
 * that header starts with `topics/` and the URL names a topic
 * (`/t/slug/123`, `/t/123`, `/t/slug/123/45`), the page is re-read through
 * the API ({@link discourseTopicOf}, called by the web path). The tool
 * `discourse` reads topics, searches and the latest topics directly.
 *
 * A topic becomes a Document: `# Title`, a line of counts, then one
 * section per post, headed `N · @author` (N the post number, also the
 * section's id, so `section=1` … `section=9` select posts 1 to 9), holding
 * the author's raw Markdown (`include_raw`). Posts follow the reply tree: a
 * reply comes right after the post it answers, one heading level deeper
 * (`· reply to #M` in its heading), so the outline shows who answered whom
 * and `auto_expand` on a post brings its replies; a reply to a post outside
 * the page stays at the top level and names it.
 * when a forum leaves `raw` out, the rendered HTML is converted instead.
 * Headings inside posts are moved below the post's level, and those whose
 * text is only a number become bold lines, so no heading can take a post's
 * number. Long topics are read through `post_stream.stream` (the ids of
 * every post) in batches of {@link BATCH} up to {@link POST_BUDGET} posts
 * or {@link CHAR_BUDGET} characters; the frontmatter then says where the
 * next page starts (`<base>/t/<id>/<next post number>`).
 *
 * Requests go through the one network door with an honest User-Agent and
 * one second between requests per forum host.
 *
 * @module
 */
import { ContentError, ToolError } from "../errors.ts";
import { hint, messageFact, ph, readPage } from "../hint.ts";
import { Document, type DocumentFact } from "../content/document/document.ts";
import { htmlToMarkdown } from "../content/html/markdown.ts";
import { trusted } from "../trust.ts";
import { defaultNet } from "../net/default.ts";
import { NetError } from "../net/errors.ts";
import { DEFAULT_MAX_BYTES, type FetchResult } from "../net/fetch.ts";
import type { Limit } from "../net/limiter.ts";
import type { LoadOptions } from "./source.ts";

/** Post ids asked for in one `posts.json` request. */
export const BATCH = 20;
/** Most posts in one Document. */
export const POST_BUDGET = 100;
/** Characters of post text after which no further batch is fetched. */
export const CHAR_BUDGET = 80_000;
/** Spacing between requests to one forum, in ms. */
export const INTERVAL_MS = 1000;

/** A topic on a forum. */
export interface TopicRef {
  /** The forum's base URL (scheme, host, subfolder; no trailing slash). */
  base: string;
  /** Topic id. */
  id: number;
  /** First post number asked for (`/t/slug/id/N`). */
  postNumber?: number;
}

const TOPIC_PATH = /^(.*?)\/t\/(?:[^/]+\/)?(\d{1,12})(?:\/(\d{1,9}))?\/?(?:\.json)?$/;
const NUMERIC_TOPIC_PATH = /^(.*?)\/t\/(\d{1,12})\/(\d{1,9})\/?(?:\.json)?$/;
const FORUM_PAGES = /\/(?:t|c|u|latest|top|new|search|categories|tag|tags|g|about)(?:[/.]|$).*$/;

function parseHttpUrl(input: string): URL {
  const text = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ToolError(
      `Could not determine a forum host from '${
        text.slice(0, 100)
      }': give the forum's address, like https://meta.discourse.org`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ToolError(
      `Could not determine a forum host from '${
        text.slice(0, 100)
      }': only http and https forum addresses are read`,
    );
  }
  if (url.username || url.password) {
    throw new ToolError("A forum address with credentials in it is refused");
  }
  if (!url.hostname.includes(".") && url.hostname !== "localhost") {
    throw new ToolError(
      `Could not determine a forum host from '${
        text.slice(0, 100)
      }': give the forum's address, like https://meta.discourse.org`,
    );
  }
  return url;
}

/**
 * The forum's base URL from an address: scheme and host, the subfolder
 * kept, forum pages (`/t/…`, `/latest`, `/c/…`), query and fragment dropped.
 */
export function forumBase(input: string): string {
  const url = parseHttpUrl(input);
  const path = url.pathname.replace(FORUM_PAGES, "").replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

/** The topic a URL names, or undefined. */
export function topicOfUrl(input: string | URL): TopicRef | undefined {
  let url: URL;
  try {
    url = typeof input === "string" ? new URL(input) : input;
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  // `/t/123/4` is topic 123 at post 4 (Discourse routes two numbers so), not slug 123.
  const m = NUMERIC_TOPIC_PATH.exec(url.pathname) ?? TOPIC_PATH.exec(url.pathname);
  if (!m) return undefined;
  const id = Number(m[2]);
  const post = m[3] === undefined ? undefined : Number(m[3]);
  if (id < 1) return undefined;
  return {
    base: `${url.protocol}//${url.host}${m[1].replace(/\/+$/, "")}`,
    id,
    postNumber: post !== undefined && post > 1 ? post : undefined,
  };
}

/**
 * The topic to re-read through the API when a generic fetch's answer comes
 * from a Discourse topic page (`x-discourse-route: topics/…`), else undefined.
 */
export function discourseTopicOf(url: string, headers: Headers): TopicRef | undefined {
  const route = headers.get("x-discourse-route");
  if (!route || !route.trim().toLowerCase().startsWith("topics/")) return undefined;
  return topicOfUrl(url);
}

/**
 * A topic from the tool's query: a topic URL, or a bare id with `base`.
 */
export function parseTopicQuery(query: string, base?: string): TopicRef {
  const text = query.trim();
  if (/^\d{1,12}$/.test(text)) {
    if (!base) {
      throw new ToolError(
        `A bare topic id needs base_url (the forum's address, like https://meta.discourse.org), or give the topic's URL`,
      );
    }
    const id = Number(text);
    if (id < 1) throw new ToolError("Topic ids start at 1");
    return { base: forumBase(base), id };
  }
  const url = parseHttpUrl(text);
  const ref = topicOfUrl(url);
  if (!ref) {
    throw new ToolError(
      `Could not extract a topic id from '${
        text.slice(0, 100)
      }': a topic URL looks like https://forum.example/t/some-title/123 (or /t/123, /t/some-title/123/45)`,
    );
  }
  return ref;
}

/** The canonical URL of a topic (at a post number when one is given). */
export function topicUrl(ref: TopicRef): string {
  return `${ref.base}/t/${ref.id}${ref.postNumber ? `/${ref.postNumber}` : ""}`;
}

function hostLimit(base: string): Limit {
  return { key: new URL(base).host.toLowerCase(), intervalMs: INTERVAL_MS };
}

/** What a request was for, for messages: "topic 123 on meta.discourse.org". */
type Purpose = "topic" | "posts" | "search" | "latest";

function explain(result: FetchResult, purpose: Purpose, what: string, host: string): never {
  const status = result.status;
  const remote = { status, body: result.text(), contentType: result.contentType };
  const fail = (message: string): never => {
    throw new NetError("status", message, result.url, { remote });
  };
  if (status === 404) {
    if (purpose === "topic" || purpose === "posts") {
      fail(
        `Not found: ${what} (HTTP 404). The topic does not exist, was deleted, or is private (Discourse answers 404 for topics only members can see); check the id, or open it in a browser if you have an account`,
      );
    }
    fail(
      `${host} has no ${purpose}.json (HTTP 404): it is probably not a Discourse forum, or the forum lives in a subfolder; check base_url`,
    );
  }
  if (status === 403) {
    fail(
      `${host} refused ${what} (HTTP 403): it is private (members only, or a login-required forum); only public topics can be read`,
    );
  }
  if (status === 429) {
    const after = result.headers.get("retry-after");
    const wait = after && /^\d{1,5}$/.test(after.trim()) ? `${after.trim()} s` : "a minute";
    fail(
      `${host} is rate limiting requests (HTTP 429) for ${what}; wait ${wait} and try again, with fewer requests`,
    );
  }
  if (status >= 500) fail(`${host} failed (HTTP ${status}) for ${what}; try again later`);
  return fail(`${host} answered HTTP ${status} for ${what}; check the address`);
}

/** GETs a forum API URL and decodes its JSON object; errors explained. */
export async function discourseJson(
  url: string,
  purpose: Purpose,
  what: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const host = new URL(url).host;
  const result = await defaultNet().fetch(url, {
    signal,
    maxBytes: DEFAULT_MAX_BYTES,
    headers: { accept: "application/json" },
    limit: hostLimit(url),
  });
  if (result.status < 200 || result.status >= 300) explain(result, purpose, what, host);
  let data: unknown;
  try {
    data = JSON.parse(result.text());
  } catch {
    if (result.contentType.includes("html")) {
      throw new ContentError(
        `${host} answered ${what} with an HTML page, not Discourse JSON: it does not look like a Discourse forum; check the address (a Discourse forum answers /latest.json)`,
      );
    }
    throw new ContentError(
      `Invalid JSON from ${url} (${
        result.contentType || "no content type"
      }); the forum may be failing, try again later`,
    );
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new ContentError(
      `The answer from ${url} is not a Discourse JSON object; ${host} may not be a Discourse forum`,
    );
  }
  return data as Record<string, unknown>;
}

/** One post as the API gives it (the fields used). */
interface Post {
  id: number;
  post_number: number;
  username?: string;
  created_at?: string;
  reply_to_post_number?: number | null;
  raw?: string;
  cooked?: string;
  hidden?: boolean;
  deleted_at?: string | null;
}

function asPosts(value: unknown): Post[] {
  if (!Array.isArray(value)) return [];
  return value.filter((p): p is Post =>
    p !== null && typeof p === "object" && Number.isInteger((p as Post).id) &&
    Number.isInteger((p as Post).post_number)
  );
}

/** `2024-01-02 03:04 UTC`, or "" for a missing or odd date. */
export function utcMinute(value: unknown): string {
  if (typeof value !== "string") return "";
  const t = Date.parse(value);
  if (Number.isNaN(t)) return "";
  return new Date(t).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/**
 * The author's raw Markdown made readable outside the forum: the table of
 * contents marker removed, `[quote]` blocks as Markdown quotes, uploads
 * (`upload://`) as `[image]`, image size hints dropped from alt text.
 */
export function cleanRaw(raw: string): string {
  return raw
    .replace(/<div\b[^>]*data-theme-toc[^>]*>\s*<\/div>/gi, "")
    .replace(
      /\[quote="([^",\]]{1,60})(?:,\s*post:(\d+))?[^"\]]*"\]\s*/g,
      (_m, user: string, post?: string) =>
        post ? `> **@${user}** (post #${post}):\n> ` : `> **@${user}**:\n> `,
    )
    .replace(/\[\/quote\]\n?/g, "\n")
    .replace(/!\[[^\]]*\]\(upload:\/\/[^)]*\)/g, "[image]")
    .replace(/!\[([^\]|]*)\|[^\]]*\]/g, "![$1]");
}

/**
 * Moves a post's own headings below the post's level (`#` becomes `###`),
 * and turns headings whose text is only a number into bold lines, so that
 * `section=N` always finds post N.
 */
export function nestHeadings(markdown: string, level = 2): string {
  let fence = "";
  return markdown.split("\n").map((line) => {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === "") fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = "";
      return line;
    }
    if (fence !== "") return line;
    const h = /^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/.exec(line);
    if (!h) return line;
    const text = h[2];
    if (/^[\d\s.#)(-]*$/.test(text) || level >= 6) {
      return text.trim() === "" ? "" : `**${text.trim()}**`;
    }
    return `${"#".repeat(Math.min(6, h[1].length + level))} ${text}`;
  }).join("\n");
}

function postBody(post: Post, base: string, level = 2): { text: string; fromHtml: boolean } {
  if (typeof post.raw === "string") {
    return { text: nestHeadings(cleanRaw(post.raw), level), fromHtml: false };
  }
  if (typeof post.cooked === "string") {
    const md = htmlToMarkdown(post.cooked, { baseUrl: base }).markdown;
    return { text: nestHeadings(md, level), fromHtml: true };
  }
  return { text: "", fromHtml: false };
}

function postHeader(post: Post): string {
  const parts = [`**@${typeof post.username === "string" ? post.username : "unknown"}**`];
  if (post.reply_to_post_number) parts.push(`reply to #${post.reply_to_post_number}`);
  const when = utcMinute(post.created_at);
  if (when) parts.push(when);
  return parts.join(" — ");
}

/**
 * Posts in reply-tree order: each post, then the posts that reply to it (in
 * post order), with their depth. A reply to a post not among `posts` (or to
 * a later one) is a root. Iterative, so long reply chains cannot overflow.
 */
function replyTree(posts: readonly Post[]): { post: Post; depth: number }[] {
  const present = new Set(posts.map((p) => p.post_number));
  const replies = new Map<number, Post[]>();
  const roots: Post[] = [];
  for (const p of [...posts].sort((a, b) => a.post_number - b.post_number)) {
    const to = p.reply_to_post_number;
    if (typeof to === "number" && to < p.post_number && present.has(to)) {
      const list = replies.get(to);
      if (list) list.push(p);
      else replies.set(to, [p]);
    } else roots.push(p);
  }
  const out: { post: Post; depth: number }[] = [];
  const stack = roots.map((post) => ({ post, depth: 0 })).reverse();
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next);
    const kids = replies.get(next.post.post_number) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ post: kids[i], depth: next.depth + 1 });
  }
  return out;
}

/** A post's heading: number, author, and whom it answers. */
function postHeading(post: Post, level: number): string {
  const user = typeof post.username === "string" && /^[\w.-]{1,60}$/.test(post.username)
    ? `@${post.username}`
    : "@unknown";
  const to = post.reply_to_post_number;
  return `${"#".repeat(level)} ${post.post_number} · ${user}${
    typeof to === "number" && to > 0 ? ` · reply to #${to}` : ""
  }`;
}

function tagNames(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((t) =>
    typeof t === "string"
      ? t
      : (t && typeof t === "object" && typeof t.name === "string")
      ? t.name as string
      : ""
  ).filter(Boolean);
}

function postIdsUrl(ref: TopicRef, ids: number[]): string {
  const q = ids.map((id) => `post_ids[]=${id}`).join("&");
  return `${ref.base}/t/${ref.id}/posts.json?include_raw=true&${q}`;
}

/** Loads a topic as a Document (see the module notes). */
export async function loadTopic(ref: TopicRef, options: LoadOptions): Promise<Document> {
  const host = new URL(ref.base).host;
  const what = `topic ${ref.id} on ${host}`;
  const first = ref.postNumber
    ? `${ref.base}/t/${ref.id}/${ref.postNumber}.json?include_raw=true`
    : `${ref.base}/t/${ref.id}.json?include_raw=true`;
  const data = await discourseJson(first, "topic", what, options.signal);
  const stream = data.post_stream as
    | { posts?: unknown; stream?: unknown; isMegaTopic?: unknown }
    | undefined;
  if (!stream || typeof stream !== "object" || !Array.isArray(stream.posts)) {
    throw new ContentError(
      `The answer for ${what} has no post_stream: ${host} may not be a Discourse forum, or this is not a topic`,
    );
  }
  options.onStage?.("converting");
  const inline = asPosts(stream.posts);
  const ids = Array.isArray(stream.stream)
    ? (stream.stream as unknown[]).filter((x): x is number => Number.isInteger(x))
    : inline.map((p) => p.id);
  const byId = new Map(inline.map((p) => [p.id, p]));
  // Where the page starts in the stream: the first post at or after the number asked for.
  let startIndex = 0;
  if (ref.postNumber) {
    const at = inline.filter((p) => p.post_number >= ref.postNumber!)
      .sort((a, b) => a.post_number - b.post_number)[0];
    const i = at ? ids.indexOf(at.id) : -1;
    startIndex = i >= 0 ? i : ids.length;
  }
  const window = ids.slice(startIndex, startIndex + POST_BUDGET);
  const posts: Post[] = [];
  let chars = 0;
  let taken = 0;
  for (let i = 0; i < window.length && chars < CHAR_BUDGET;) {
    const batch = window.slice(i, i + BATCH);
    const missing = batch.filter((id) => !byId.has(id));
    if (missing.length > 0) {
      const more = await discourseJson(postIdsUrl(ref, missing), "posts", what, options.signal);
      const got = asPosts((more.post_stream as { posts?: unknown } | undefined)?.posts);
      for (const p of got) byId.set(p.id, p);
    }
    for (const id of batch) {
      const p = byId.get(id);
      if (p) {
        posts.push(p);
        chars += (p.raw ?? p.cooked ?? "").length;
      }
    }
    taken = i + batch.length;
    i += BATCH;
  }
  posts.sort((a, b) => a.post_number - b.post_number);
  const title = typeof data.title === "string" ? data.title : `Topic ${ref.id}`;
  const postsCount = Number.isInteger(data.posts_count) ? data.posts_count as number : ids.length;
  const meta = [`${postsCount} posts`];
  if (Number.isInteger(data.views)) meta.push(`${data.views} views`);
  const created = utcMinute(data.created_at);
  if (created) meta.push(created);
  const tags = tagNames(data.tags);
  if (tags.length > 0) meta.push(`tags: ${tags.join(", ")}`);
  const safeTitle = /^[\d\s.#]*$/.test(title) ? `Topic: ${title}` : title.replace(/\s+/g, " ");
  const parts = [`# ${safeTitle}`, meta.join(" | ")];
  let length = parts.join("\n\n").length;
  const anchors = new Map<string, number>();
  let fromHtml = false;
  for (const { post: p, depth } of replyTree(posts)) {
    const level = Math.min(6, 2 + depth);
    const body = postBody(p, ref.base, level);
    fromHtml ||= body.fromHtml;
    const block = [postHeading(p, level), postHeader(p), body.text.trim() || "*(no text)*"];
    anchors.set(String(p.post_number), length + 2);
    parts.push(...block);
    length += 2 + block.join("\n\n").length;
  }
  const markdown = parts.join("\n\n") + "\n";
  const facts: DocumentFact[] = [
    { key: "api", value: trusted.text`Discourse` },
    { key: "posts", value: postsCount },
  ];
  if (posts.length > 0) {
    facts.push({
      key: "showing_posts",
      value: trusted.text`${posts[0].post_number}-${posts[posts.length - 1].post_number}`,
    });
  }
  facts.push(messageFact(
    hint`each post is a section named by its number: ${
      readPage({ section: 1 })
    } is the first post, ${readPage({ section: 12 })} the twelfth; ${
      readPage({ search: ph("words") })
    } finds words across posts`,
  ));
  const remaining = ids.length - (startIndex + taken);
  if (stream.isMegaTopic === true) {
    facts.push({
      key: "note",
      value: trusted
        .text`this is a mega-topic (over 10,000 posts): the forum lists no post ids, so only the posts it sent are shown; open a later page with the topic URL and a post number (/t/${ref.id}/N)`,
    });
  } else if (remaining > 0 && posts.length > 0) {
    const next = posts[posts.length - 1].post_number + 1;
    facts.push({
      key: "hint",
      value: trusted.text`${remaining} more posts after post ${
        posts[posts.length - 1].post_number
      }: read them from ${trusted.url(`${ref.base}/t/${ref.id}/${next}`)}`,
    });
  }
  if (ref.postNumber && posts.length === 0) {
    facts.push({
      key: "note",
      value: trusted.text`the topic has no post numbered ${ref.postNumber} or later; read it from ${
        trusted.url(`${ref.base}/t/${ref.id}`)
      }`,
    });
  }
  if (fromHtml) {
    facts.push({
      key: "note",
      value: trusted
        .text`the forum did not give the authors' raw Markdown; posts were converted from the rendered HTML`,
    });
  }
  return new Document({
    url: topicUrl(ref),
    kind: "record",
    title: safeTitle,
    markdown,
    anchors,
    contentType: "application/json",
    facts,
    source: "discourse",
  });
}

/** One search hit. */
export interface SearchHit {
  /** Topic title. */
  topic: string;
  /** Author. */
  author: string;
  /** Post number. */
  post: number;
  /** Replies in the topic. */
  replies: number | null;
  /** Post URL. */
  url: string;
  /** Text around the match (at most 200 characters). */
  blurb: string;
}

/** Full-text search on a forum (`/search.json?q=`). */
export async function searchForum(
  base: string,
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<SearchHit[]> {
  const host = new URL(base).host;
  const data = await discourseJson(
    `${base}/search.json?q=${encodeURIComponent(query)}`,
    "search",
    `a search on ${host}`,
    signal,
  );
  if (!("posts" in data) && !("topics" in data) && !("grouped_search_result" in data)) {
    throw new ContentError(
      `The answer of ${host}/search.json is not a Discourse search result: ${host} may not be a Discourse forum; check base_url`,
    );
  }
  const topics = new Map<number, { title?: unknown; reply_count?: unknown }>();
  if (Array.isArray(data.topics)) {
    for (const t of data.topics as { id?: unknown; title?: unknown; reply_count?: unknown }[]) {
      if (t && Number.isInteger(t.id)) topics.set(t.id as number, t);
    }
  }
  const posts = Array.isArray(data.posts) ? data.posts as Record<string, unknown>[] : [];
  return posts.filter((p) => p && Number.isInteger(p.topic_id) && Number.isInteger(p.post_number))
    .slice(0, limit).map((p) => {
      const t = topics.get(p.topic_id as number);
      return {
        topic: typeof t?.title === "string" ? t.title : `topic ${p.topic_id}`,
        author: typeof p.username === "string" ? `@${p.username}` : "",
        post: p.post_number as number,
        replies: Number.isInteger(t?.reply_count) ? t!.reply_count as number : null,
        url: `${base}/t/${p.topic_id}/${p.post_number}`,
        blurb: typeof p.blurb === "string" ? p.blurb.replace(/\s+/g, " ").slice(0, 200) : "",
      };
    });
}

/** One topic of the latest list. */
export interface LatestTopic {
  /** Title. */
  title: string;
  /** Posts. */
  posts: number | null;
  /** Replies. */
  replies: number | null;
  /** Views. */
  views: number | null;
  /** Last post, `YYYY-MM-DD HH:MM UTC`. */
  last_post: string;
  /** Topic URL. */
  url: string;
}

/** The latest topics of a forum (`/latest.json`). */
export async function latestTopics(
  base: string,
  limit: number,
  signal?: AbortSignal,
): Promise<LatestTopic[]> {
  const host = new URL(base).host;
  const data = await discourseJson(
    `${base}/latest.json`,
    "latest",
    `the latest topics on ${host}`,
    signal,
  );
  const list = data.topic_list as { topics?: unknown } | undefined;
  if (!list || typeof list !== "object" || !Array.isArray(list.topics)) {
    throw new ContentError(
      `The answer of ${host}/latest.json has no topic_list: ${host} is not a Discourse forum, or not at this address; check base_url`,
    );
  }
  const num = (v: unknown): number | null => Number.isInteger(v) ? v as number : null;
  return (list.topics as Record<string, unknown>[])
    .filter((t) => t && Number.isInteger(t.id))
    .slice(0, limit)
    .map((t) => ({
      title: typeof t.title === "string" ? t.title : `topic ${t.id}`,
      posts: num(t.posts_count),
      replies: num(t.reply_count),
      views: num(t.views),
      last_post: utcMinute(t.last_posted_at ?? t.bumped_at),
      url: `${base}/t/${
        typeof t.slug === "string" && /^[\w-]{1,200}$/.test(t.slug) ? `${t.slug}/` : ""
      }${t.id}`,
    }));
}
