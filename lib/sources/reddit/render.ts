/**
 * Reddit JSON to Markdown: a post with its comment tree (one heading per
 * comment, addressable by the comment's id, nested by depth), listings of
 * posts, and user pages. Everything here is free text that goes inside the
 * fence; the source computes the frontmatter facts separately.
 *
 * @module
 */

import { type Json, num, str } from "../json.ts";

export { type Json, num, str };

/** Deepest heading level; replies below it stay at this level, marked as replies. */
const MAX_LEVEL = 6;
/** Heading level of top-level comments. */
const TOP_LEVEL = 2;

/** The `data` of a Reddit thing. */
export function dataOf(thing: unknown): Json | undefined {
  const d = (thing as Json | undefined)?.data;
  return d !== null && typeof d === "object" && !Array.isArray(d) ? d as Json : undefined;
}

/** The children of a Listing. */
export function children(listing: unknown): Json[] {
  const c = dataOf(listing)?.children;
  return Array.isArray(c) ? c.filter((x) => x !== null && typeof x === "object") as Json[] : [];
}

/** `YYYY-MM-DD HH:MM UTC` of epoch seconds. */
export function when(epoch: number | undefined): string {
  if (epoch === undefined) return "unknown date";
  return new Date(epoch * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

function points(n: number | undefined): string {
  return n === undefined ? "score hidden" : `${n} point${n === 1 ? "" : "s"}`;
}

/** Markdown headings in free text become bold lines, so they never make sections. */
export function flattenHeadings(text: string): string {
  let fence: string | undefined;
  return text.replace(/\r\n?/g, "\n").split("\n").map((line) => {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = undefined;
      return line;
    }
    if (fence !== undefined) return line;
    const h = /^\s{0,3}#{1,6}(?:\s+(.*?))?\s*#*\s*$/.exec(line);
    return h ? (h[1] ? `**${h[1]}**` : "") : line;
  }).join("\n");
}

function author(d: Json): string {
  const a = str(d, "author");
  return !a || a === "[deleted]" ? "[deleted]" : `u/${a}`;
}

/** What happened to a removed or deleted body, or undefined when it is intact. */
export function goneBody(body: string, authorName: string): string | undefined {
  if (body === "[removed]") {
    return "*Removed by the moderators or by Reddit; its text is not served.*";
  }
  if (body === "[deleted]" || (authorName === "[deleted]" && !body)) {
    return "*Deleted by its author; its text is not served.*";
  }
  return undefined;
}

/** A `more` stub: replies Reddit did not send. */
export interface MoreStub {
  /** The thing whose replies they are (`t1_…` or `t3_…`). */
  parent: string;
  /** How many. */
  count: number;
}

/** What rendering a thread found. */
export interface ThreadStats {
  /** Comments rendered. */
  comments: number;
  /** Deleted or removed comments among them. */
  gone: number;
  /** `more` stubs. */
  more: MoreStub[];
  /** Ids of comments, in order. */
  ids: string[];
}

/** A rendered thread. */
export interface RenderedThread {
  /** Markdown. */
  markdown: string;
  /** Comment id to heading offset. */
  anchors: Map<string, number>;
  /** What was found. */
  stats: ThreadStats;
}

/** The post header and body (heading `# title`). */
export function renderPostHead(post: Json): string {
  const meta = [`**${author(post)}**`, points(num(post, "score"))];
  const ratio = num(post, "upvote_ratio");
  if (ratio !== undefined) meta[1] += ` (${Math.round(ratio * 100)}% upvoted)`;
  meta.push(`${num(post, "num_comments") ?? 0} comments`);
  if (str(post, "subreddit")) meta.push(`r/${str(post, "subreddit")}`);
  if (str(post, "link_flair_text")) meta.push(`[${str(post, "link_flair_text")}]`);
  meta.push(when(num(post, "created_utc")));
  const lines = [
    `# ${str(post, "title").replace(/\s+/g, " ").trim() || "(untitled)"}`,
    "",
    meta.join(" · "),
  ];
  const flags: string[] = [];
  if (post.over_18 === true) flags.push("NSFW");
  if (post.spoiler === true) flags.push("spoiler");
  if (post.locked === true) flags.push("locked");
  if (post.stickied === true) flags.push("pinned");
  if (post.archived === true) flags.push("archived");
  if (flags.length) lines.push(`Flags: ${flags.join(", ")}`);
  lines.push("");
  const body = str(post, "selftext").trim();
  const gone = goneBody(body, str(post, "author"));
  if (gone) {
    lines.push(
      gone.replace("*Removed", "*The post's text was removed").replace(
        "*Deleted",
        "*The post was deleted",
      ),
    );
  } else if (body) lines.push(flattenHeadings(body));
  if (post.is_self !== true && str(post, "url")) lines.push("", `Link: ${str(post, "url")}`);
  return lines.join("\n").trim() + "\n";
}

/** A post and its comment tree (the second Listing of `/comments/<id>`). */
export function renderThread(post: Json, comments: Json[]): RenderedThread {
  const parts: string[] = [renderPostHead(post)];
  let length = parts[0].length;
  const anchors = new Map<string, number>();
  const stats: ThreadStats = { comments: 0, gone: 0, more: [], ids: [] };
  const add = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const walk = (list: Json[], depth: number, parent: string) => {
    for (const thing of list) {
      const d = dataOf(thing);
      if (!d) continue;
      if (thing.kind === "more") {
        const count = num(d, "count") ?? 0;
        const ids = Array.isArray(d.children) ? d.children.length : 0;
        const n = Math.max(count, ids);
        stats.more.push({ parent: str(d, "parent_id") || parent, count: n });
        add(
          n > 0
            ? `\n*${n} more repl${n === 1 ? "y" : "ies"} not loaded here.*\n`
            : `\n*The thread continues deeper: not loaded here.*\n`,
        );
        continue;
      }
      if (thing.kind !== "t1") continue;
      const id = str(d, "id");
      if (!/^[a-z0-9]{1,13}$/.test(id)) continue;
      const body = str(d, "body").trim();
      const gone = goneBody(body, str(d, "author"));
      const level = Math.min(MAX_LEVEL, TOP_LEVEL + depth);
      const reply = TOP_LEVEL + depth > MAX_LEVEL
        ? ` · reply to ${str(d, "parent_id").slice(3)}`
        : "";
      const head = `${"#".repeat(level)} ${id} · ${author(d)} · ${
        d.score_hidden === true ? "score hidden" : points(num(d, "score"))
      } · ${gone ? "0 chars" : `${body.length} chars`}${reply}`;
      add("\n");
      anchors.set(id, length);
      add(
        `${head}\n\n${when(num(d, "created_utc"))}${
          d.edited && d.edited !== false ? " (edited)" : ""
        }${d.stickied === true ? " · pinned" : ""}${
          str(d, "distinguished") === "moderator" ? " · moderator" : ""
        }\n\n${gone ?? flattenHeadings(body)}\n`,
      );
      stats.comments++;
      stats.ids.push(id);
      if (gone) stats.gone++;
      const replies = d.replies;
      if (replies && typeof replies === "object") walk(children(replies), depth + 1, `t1_${id}`);
    }
  };
  walk(comments, 0, `t3_${str(post, "id")}`);
  if (stats.comments === 0 && stats.more.length === 0) add("\n*No comments.*\n");
  return { markdown: parts.join("").trim() + "\n", anchors, stats };
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** One post of a listing. */
export function postLine(n: number, p: Json, withSub: boolean): string {
  const flair = str(p, "link_flair_text") ? ` [${str(p, "link_flair_text")}]` : "";
  const sub = withSub && str(p, "subreddit") ? ` — r/${str(p, "subreddit")}` : "";
  return `${n}. **${oneLine(str(p, "title"), 300)}**${flair} (${points(num(p, "score"))}, ${
    num(p, "num_comments") ?? 0
  } comments) — ${author(p)}${sub} — ${when(num(p, "created_utc"))}\n   https://www.reddit.com${
    str(p, "permalink")
  }`;
}

/** One comment of a user page. */
export function commentLine(n: number, c: Json): string {
  const body = str(c, "body");
  return `${n}. Comment in r/${str(c, "subreddit")} on “${oneLine(str(c, "link_title"), 120)}” (${
    points(num(c, "score"))
  }) — ${when(num(c, "created_utc"))}: ${
    goneBody(body.trim(), str(c, "author")) ?? oneLine(body, 240)
  }\n   https://www.reddit.com${str(c, "permalink")}`;
}

/** A listing of posts (and, on user pages, comments). */
export function renderListing(title: string, items: Json[], withSub: boolean): string {
  const lines = [`# ${title}`, ""];
  if (items.length === 0) lines.push("*No posts found.*");
  items.forEach((thing, i) => {
    const d = dataOf(thing);
    if (!d) return;
    lines.push(thing.kind === "t1" ? commentLine(i + 1, d) : postLine(i + 1, d, withSub));
  });
  return lines.join("\n") + "\n";
}

/** A user's about block. */
export function renderAbout(name: string, about: Json | undefined): string {
  const lines = [`# u/${name}`, ""];
  if (!about) return lines.join("\n");
  const karma = [
    `${num(about, "link_karma") ?? 0} post karma`,
    `${num(about, "comment_karma") ?? 0} comment karma`,
  ];
  lines.push(`${karma.join(" · ")} · account created ${when(num(about, "created_utc"))}`);
  const desc = str(dataOf({ data: about.subreddit }), "public_description").trim();
  if (desc) lines.push("", flattenHeadings(desc));
  return lines.join("\n") + "\n";
}
