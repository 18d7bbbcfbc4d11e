/**
 * Reddit: the source that serves reddit.com (www, old, new, np) and redd.it
 * URLs through Reddit's JSON API, never the HTML site.
 *
 * - Posts: the post, then its comment tree, one heading per comment
 *   (`## <id> · u/author · N points · N chars`, replies one level deeper),
 *   addressable by the comment id: `section=<id>` reads one subthread and
 *   `web_fetch_sections` lists the tree. Replies Reddit did not send
 *   (`more` stubs) are said in place and in a note, with how to load them.
 * - Comment permalinks: the post and that comment's subthread only, cut
 *   from the whole thread, which is loaded once and kept (bounded in
 *   bytes), so the permalinks of its other comments need no second fetch.
 *   A comment the thread's answer does not hold (deep, or behind a stub) is
 *   asked for by its own permalink.
 * - Replies Reddit leaves out as `more` stubs are fetched with
 *   `/api/morechildren` within a budget (at most {@link MORE_REQUESTS}
 *   requests of {@link MORE_IDS} ids per thread); what stays out is said.
 * - Search (`/search?q=`, `/r/<sub>/search?q=`): 25 posts a page.
 * - Subreddit listings (hot, new, top, rising, controversial; `t=`,
 *   `after=`) and user pages (about, then recent posts and comments): 25
 *   items, the next page's URL in a hint.
 * - Deleted and removed posts and comments are said as such; private,
 *   quarantined, gated and banned subreddits, missing and suspended users
 *   are errors that say what happened.
 *
 * Access (a userless token without set-up, or an app's own) is in `api.ts`.
 *
 * @module
 */
import { hint, messageFact, ph, readOutline, readPage } from "../../hint.ts";
import { Document, type DocumentFact } from "../../content/document/document.ts";
import { trusted } from "../../trust.ts";
import { type Access, redditJson } from "./api.ts";
import { ContentError } from "../../errors.ts";
import {
  children,
  dataOf,
  type Json,
  num,
  renderAbout,
  renderListing,
  renderThread,
  str,
} from "./render.ts";
import {
  apiPath,
  canonicalUrl,
  CURSOR,
  ID,
  isRedditHost,
  parseRedditUrl,
  type RedditTarget,
  SEARCH_SORTS,
  SORTS,
  SUBREDDIT,
  TIMES,
  USER_TABS,
  USERNAME,
} from "./urls.ts";
import type { LoadOptions, Source } from "../source.ts";
import { PageCache } from "../../net/cache.ts";
import { ownedKey } from "../../net/page_key.ts";

/** Kinds of Reddit Documents, as the frontmatter's `type` says them. */
export const REDDIT_TYPES = [
  "post",
  "comment",
  "subreddit",
  "front_page",
  "user",
  "search",
] as const;

/** Most `/api/morechildren` requests made for one thread. */
export const MORE_REQUESTS = 2;
/** Most comment ids asked for in one `/api/morechildren` request (Reddit's cap is 100). */
export const MORE_IDS = 100;
/** Bytes of whole threads kept for their comment permalinks. */
export const THREAD_CACHE_BYTES = 16 * 1024 * 1024;

/** A whole thread as the API sent it, its `more` stubs expanded within the budget. */
interface Thread {
  post: Json;
  comments: Json[];
  access: Access;
  /** Comments added by `/api/morechildren`. */
  expanded: number;
  /** Whether a morechildren request failed (the stubs it asked for stay). */
  expandFailed: boolean;
  bytes: number;
}

const threads = new PageCache<Thread>({ maxBytes: THREAD_CACHE_BYTES, sizeOf: (t) => t.bytes });

/** A thread's entry: kept per principal when the page cache is (PARKOUR_CACHE_SCOPE). */
function threadKey(target: Extract<Target, { kind: "post" }>): string {
  return ownedKey(`https://www.reddit.com/comments/${target.id}/?sort=${target.sort ?? ""}`);
}

/** The whole thread of a post: from the thread cache, or the API (stubs expanded). */
async function loadThread(
  target: Extract<Target, { kind: "post" }>,
  signal?: AbortSignal,
): Promise<Thread> {
  const key = threadKey(target);
  const hit = threads.get(key);
  if (hit) return hit;
  const whole = { ...target, comment: undefined };
  const what = `post ${target.id}`;
  const { data, access } = await redditJson(apiPath(whole), what, signal);
  const thread = threadOf(data, what, target.id, access);
  await expandMore(thread, target.id, signal);
  thread.bytes = JSON.stringify([thread.post, thread.comments]).length * 2;
  threads.set(key, thread);
  return thread;
}

/** The post and comments of a `/comments/<id>` answer, checked. */
function threadOf(data: unknown, what: string, id: string, access: Access): Thread {
  if (!Array.isArray(data) || data.length < 2) {
    throw new ContentError(
      `Reddit's answer for ${what} was not the pair of listings (post, comments) it documents; try again later`,
    );
  }
  const post = dataOf(children(data[0])[0]);
  if (!post || children(data[0])[0].kind !== "t3") {
    throw new ContentError(
      `Not found on Reddit: post ${id} is not in the answer; check the id`,
    );
  }
  return {
    post,
    comments: children(data[1]),
    access,
    expanded: 0,
    expandFailed: false,
    bytes: 0,
  };
}

/** A `more` stub in a thread: the list holding it and its ids. */
interface Stub {
  list: Json[];
  thing: Json;
  ids: string[];
}

function stubsOf(list: Json[], out: Stub[] = []): Stub[] {
  for (const thing of list) {
    const d = typeof thing === "object" && thing !== null ? dataOf(thing) : undefined;
    if (!d) continue;
    if (thing.kind === "more") {
      const ids = Array.isArray(d.children)
        ? d.children.filter((c): c is string => typeof c === "string" && ID.test(c))
        : [];
      if (ids.length > 0) out.push({ list, thing, ids });
    } else if (thing.kind === "t1" && d.replies && typeof d.replies === "object") {
      // The replies' own array (not a filtered copy): an expanded stub is taken out of it.
      stubsOf(repliesOf(d), out);
    }
  }
  return out;
}

function commentIndex(list: Json[], index = new Map<string, Json>()): Map<string, Json> {
  for (const thing of list) {
    const d = dataOf(thing);
    if (!d || thing.kind !== "t1") continue;
    index.set(str(d, "id"), d);
    if (d.replies && typeof d.replies === "object") commentIndex(children(d.replies), index);
  }
  return index;
}

/** The children array of a comment's replies, made when the comment has none. */
function repliesOf(d: Json): Json[] {
  if (!d.replies || typeof d.replies !== "object") d.replies = { kind: "Listing", data: {} };
  const listing = dataOf(d.replies)!;
  if (!Array.isArray(listing.children)) listing.children = [];
  return listing.children as Json[];
}

/**
 * Loads replies Reddit left out (`more` stubs with ids) through
 * `/api/morechildren`, within {@link MORE_REQUESTS} requests; each comment
 * it returns joins its parent by `parent_id`. A failed request leaves the
 * remaining stubs in place.
 */
async function expandMore(thread: Thread, postId: string, signal?: AbortSignal): Promise<void> {
  for (let round = 0; round < MORE_REQUESTS; round++) {
    const stubs = stubsOf(thread.comments);
    const ids: string[] = [];
    const taken: Stub[] = [];
    for (const stub of stubs) {
      if (ids.length + stub.ids.length > MORE_IDS && ids.length > 0) break;
      ids.push(...stub.ids.slice(0, MORE_IDS - ids.length));
      taken.push(stub);
    }
    if (ids.length === 0) return;
    let things: Json[];
    try {
      const { data } = await redditJson(
        `/api/morechildren?api_type=json&link_id=t3_${postId}&children=${ids.join(",")}&raw_json=1`,
        `more replies of post ${postId}`,
        signal,
      );
      const list = ((data as Json)?.json as Json | undefined)?.data as Json | undefined;
      if (!Array.isArray(list?.things)) throw new Error("no things");
      things = (list.things as unknown[]).filter((t) =>
        t !== null && typeof t === "object"
      ) as Json[];
    } catch (error) {
      if (signal?.aborted) throw error;
      thread.expandFailed = true;
      return;
    }
    const asked = new Set(ids);
    for (const stub of taken) {
      const rest = stub.ids.filter((id) => !asked.has(id));
      const d = dataOf(stub.thing)!;
      if (rest.length === 0) stub.list.splice(stub.list.indexOf(stub.thing), 1);
      else {
        d.children = rest;
        d.count = Math.max(rest.length, (num(d, "count") ?? 0) - (stub.ids.length - rest.length));
      }
    }
    const index = commentIndex(thread.comments);
    for (const thing of things) {
      const d = dataOf(thing);
      if (!d || (thing.kind !== "t1" && thing.kind !== "more")) continue;
      const parent = str(d, "parent_id");
      const target = parent.startsWith("t1_") ? index.get(parent.slice(3)) : undefined;
      if (target) repliesOf(target).push(thing);
      else if (parent === `t3_${postId}`) thread.comments.push(thing);
      else continue;
      if (thing.kind === "t1") {
        index.set(str(d, "id"), d);
        thread.expanded++;
      }
    }
  }
}

type Target = Exclude<RedditTarget, { kind: "unsupported" }>;

function fact(key: string, value: DocumentFact["value"]): DocumentFact {
  return { key, value };
}

function apiFact(access: Access): DocumentFact {
  return fact(
    "api",
    access === "oauth"
      ? trusted.text`Reddit (oauth.reddit.com, application-only OAuth)`
      : trusted.text`Reddit (oauth.reddit.com, userless OAuth)`,
  );
}

function isoOf(epoch: number | undefined): DocumentFact[] {
  if (epoch === undefined || !Number.isFinite(epoch)) return [];
  return [
    fact("created", trusted.isoDate(new Date(epoch * 1000).toISOString().slice(0, 19) + "Z")),
  ];
}

function pageUrl(target: Target): string {
  return canonicalUrl(target);
}

async function loadPost(
  target: Extract<Target, { kind: "post" }>,
  signal?: AbortSignal,
): Promise<Document> {
  let thread = await loadThread(target, signal);
  let comments = thread.comments;
  if (target.comment) {
    // The subthread is cut from the whole thread; a comment it lacks is asked for by permalink.
    let focus = findComment(comments, target.comment);
    if (!focus) {
      const what = `comment ${target.comment} of post ${target.id}`;
      const { data, access } = await redditJson(apiPath(target), what, signal);
      thread = threadOf(data, what, target.id, access);
      focus = findComment(thread.comments, target.comment);
    }
    comments = focus ? [focus] : [];
  }
  const { post, access } = thread;
  const rendered = renderThread(post, comments);
  const sub = str(post, "subreddit");
  const id = str(post, "id");
  const base = `https://www.reddit.com${SUBREDDIT.test(sub) ? `/r/${sub}` : ""}/comments/${
    ID.test(id) ? id : target.id
  }/`;
  const facts: DocumentFact[] = [
    apiFact(access),
    fact("type", trusted.oneOf(REDDIT_TYPES, target.comment ? "comment" : "post")),
    fact("post_id", trusted.matching(ID.test(id) ? id : target.id, ID)),
  ];
  if (SUBREDDIT.test(sub)) facts.push(fact("subreddit", trusted.matching(sub, SUBREDDIT)));
  const score = num(post, "score");
  if (score !== undefined) facts.push(fact("score", score));
  facts.push(fact("num_comments", num(post, "num_comments") ?? 0));
  facts.push(fact("comments_shown", rendered.stats.comments));
  facts.push(...isoOf(num(post, "created_utc")));
  if (post.is_self !== true && str(post, "url")) {
    try {
      const link = new URL(str(post, "url"));
      if (link.protocol === "https:" || link.protocol === "http:") {
        facts.push(fact("link", trusted.url(link)));
      }
    } catch { /* not a URL: the body says it */ }
  }
  const selftext = str(post, "selftext").trim();
  if (selftext === "[removed]" || selftext === "[deleted]" || str(post, "author") === "[deleted]") {
    facts.push(fact(
      "note",
      selftext === "[removed]"
        ? trusted
          .text`The post's text was removed by the moderators or by Reddit; the comments remain`
        : trusted.text`The post was deleted by its author; the title and comments remain`,
    ));
  }
  if (post.removed_by_category && typeof post.removed_by_category === "string") {
    facts.push(fact(
      "note",
      trusted.text`Reddit marks this post as removed (${
        trusted.matching(post.removed_by_category.slice(0, 40), /^[a-z_]{1,40}$/)
      })`,
    ));
  }
  if (target.comment) {
    if (!rendered.stats.ids.includes(target.comment)) {
      throw new ContentError(
        `Not found on Reddit: comment ${target.comment} is not in post ${target.id} (deleted, or a wrong id); read the whole thread at ${base}`,
      );
    }
    facts.push(fact(
      "note",
      trusted.text`Scoped to comment ${
        trusted.matching(target.comment, ID)
      } and its replies (the URL is a comment permalink); the whole thread is at ${
        trusted.url(base)
      }`,
    ));
  }
  if (thread.expanded > 0) {
    facts.push(fact("comments_expanded", thread.expanded));
  }
  if (thread.expandFailed) {
    facts.push(fact(
      "note",
      trusted
        .text`Reddit's morechildren endpoint did not answer, so replies it left out stay out; fetch a comment's permalink for its replies`,
    ));
  }
  if (rendered.stats.gone > 0) {
    facts.push(fact(
      "note",
      trusted
        .text`${rendered.stats.gone} comment(s) were deleted or removed; their place in the tree is kept, their text is not served`,
    ));
  }
  const more = rendered.stats.more;
  if (more.length > 0) {
    const total = more.filter((m) => m.parent.startsWith("t1_")).reduce((n, m) => n + m.count, 0);
    const parents = [
      ...new Set(
        more.map((m) => m.parent).filter((p) => p.startsWith("t1_") && ID.test(p.slice(3))).map((
          p,
        ) => p.slice(3)),
      ),
    ];
    if (parents.length > 0) {
      facts.push(fact(
        "note",
        trusted.text`Reddit did not send some replies (${total} or more) of ${
          trusted.matching(parents.slice(0, 5).join(", "), /^[a-z0-9, ]{1,80}$/)
        }${trusted.text`${
          parents.length > 5 ? trusted.text` and others` : trusted.text``
        }`}; to load a comment's replies, fetch its permalink, e.g. ${
          trusted.url(`${base}_/${parents[0]}/`)
        }`,
      ));
    }
    if (more.some((m) => m.parent.startsWith("t3_"))) {
      facts.push(fact(
        "note",
        trusted.text`Not every top-level comment was sent (Reddit caps a thread's answer); fetch ${
          trusted.url(`${base}?sort=new`)
        } or ${trusted.url(`${base}?sort=top`)} to see others`,
      ));
    }
  }
  if (rendered.stats.comments > 0) {
    facts.push(messageFact(
      hint`Each comment is a section named by its id: ${
        readPage({ section: ph("id"), auto_expand: true })
      } reads that comment and its replies; ${readOutline()} lists the tree`,
    ));
  }
  return new Document({
    url: target.comment ? `${base}_/${target.comment}/` : base,
    kind: "record",
    // The Markdown starts with the title already (free text, inside the fence).
    title: "",
    markdown: rendered.markdown,
    anchors: rendered.anchors,
    source: "reddit",
    facts,
  });
}

/** The comment `id` in a comment tree. */
function findComment(list: Json[], id: string): Json | undefined {
  for (const thing of list) {
    const d = dataOf(thing);
    if (!d || thing.kind !== "t1") continue;
    if (str(d, "id") === id) return thing;
    const found = d.replies && typeof d.replies === "object"
      ? findComment(children(d.replies), id)
      : undefined;
    if (found) return found;
  }
  return undefined;
}

function nextHint(target: Target, after: unknown): DocumentFact[] {
  if (typeof after !== "string" || !CURSOR.test(after)) return [];
  const next = pageUrl({ ...target, after } as Target);
  return [
    fact("next_cursor", trusted.matching(after, CURSOR)),
    fact("hint", trusted.text`More items: fetch ${trusted.url(next)} for the next page (after=)`),
  ];
}

async function loadListing(
  target: Extract<Target, { kind: "listing" }>,
  signal?: AbortSignal,
): Promise<Document> {
  const what = target.subreddit ? `r/${target.subreddit}` : "the front page";
  const { data, access } = await redditJson(apiPath(target), what, signal);
  if (str(data, "kind") !== "Listing") {
    throw new ContentError(
      `Reddit's answer for ${what} was not the Listing it documents; check the subreddit name`,
    );
  }
  const items = children(data);
  const facts: DocumentFact[] = [
    apiFact(access),
    fact("type", trusted.oneOf(REDDIT_TYPES, target.subreddit ? "subreddit" : "front_page")),
  ];
  if (target.subreddit) {
    facts.push(fact("subreddit", trusted.matching(target.subreddit, SUBREDDIT)));
  }
  facts.push(fact("sort", trusted.oneOf(SORTS, target.sort)));
  if (target.t) facts.push(fact("t", trusted.oneOf(TIMES, target.t)));
  facts.push(fact("items", items.length));
  facts.push(...nextHint(target, dataOf(data)?.after));
  if (items.length === 0) {
    facts.push(fact(
      "note",
      target.after
        ? trusted
          .text`No posts after this cursor: the listing ended, or the cursor expired; start again without after=`
        : trusted
          .text`No posts: the subreddit is empty, or the name is not a subreddit; check the spelling`,
    ));
  }
  if (target.sort !== "top" && target.sort !== "controversial") {
    facts.push(fact(
      "see_also",
      trusted
        .text`Other sorts: /hot, /new, /top?t=week (hour, day, week, month, year, all), /rising, /controversial`,
    ));
  }
  const title = `${
    target.subreddit ? `r/${target.subreddit}` : "Reddit front page"
  } — ${target.sort}${target.t ? ` (${target.t})` : ""}`;
  return new Document({
    url: pageUrl(target),
    kind: "record",
    title: "",
    markdown: renderListing(title, items, !target.subreddit),
    source: "reddit",
    facts,
  });
}

async function loadSearch(
  target: Extract<Target, { kind: "search" }>,
  signal?: AbortSignal,
): Promise<Document> {
  const where = target.subreddit ? `r/${target.subreddit}` : "Reddit";
  const what = `the search of ${where}`;
  const { data, access } = await redditJson(apiPath(target), what, signal);
  if (str(data, "kind") !== "Listing") {
    throw new ContentError(
      `Reddit's answer for ${what} was not the Listing it documents; try again later`,
    );
  }
  // Search answers only posts (t3); anything else Reddit mixes in is left out.
  const items = children(data).filter((t) => t.kind === "t3");
  const facts: DocumentFact[] = [
    apiFact(access),
    fact("type", trusted.oneOf(REDDIT_TYPES, "search")),
  ];
  if (target.subreddit) {
    facts.push(fact("subreddit", trusted.matching(target.subreddit, SUBREDDIT)));
  }
  facts.push(fact("sort", trusted.oneOf(SEARCH_SORTS, target.sort ?? "relevance")));
  if (target.t) facts.push(fact("t", trusted.oneOf(TIMES, target.t)));
  facts.push(fact("items", items.length));
  facts.push(...nextHint(target, dataOf(data)?.after));
  if (items.length === 0) {
    facts.push(fact(
      "note",
      target.after
        ? trusted
          .text`No more results after this cursor; start again without after=`
        : trusted
          .text`No posts matched; Reddit search matches whole words in titles and text: try other or fewer words`,
    ));
  }
  facts.push(fact(
    "see_also",
    trusted
      .text`sort=relevance, hot, top, new or comments and t=hour, day, week, month, year or all narrow the search; each result's comments are at its URL`,
  ));
  return new Document({
    url: pageUrl(target),
    kind: "record",
    title: "",
    markdown: renderListing(`Search of ${where}: ${target.q}`, items, !target.subreddit),
    source: "reddit",
    facts,
  });
}

async function loadUser(
  target: Extract<Target, { kind: "user" }>,
  signal?: AbortSignal,
): Promise<Document> {
  const who = `the user u/${target.name}`;
  const about = await redditJson(`/user/${target.name}/about?raw_json=1`, who, signal);
  const a = dataOf(about.data);
  if (str(about.data, "kind") !== "t2" || !a) {
    throw new ContentError(
      `Not found on Reddit: ${who} does not exist, or the account was deleted`,
    );
  }
  if (a.is_suspended === true) {
    throw new ContentError(
      `${who} is suspended: Reddit serves neither the profile nor its posts; nothing to read`,
    );
  }
  const { data, access } = await redditJson(apiPath(target), `the posts of ${who}`, signal);
  const items = children(data);
  const facts: DocumentFact[] = [
    apiFact(access),
    fact("type", trusted.oneOf(REDDIT_TYPES, "user")),
    fact("user", trusted.matching(target.name, USERNAME)),
    fact("tab", trusted.oneOf(USER_TABS, target.tab)),
  ];
  const link = num(a, "link_karma");
  const comment = num(a, "comment_karma");
  if (link !== undefined) facts.push(fact("link_karma", link));
  if (comment !== undefined) facts.push(fact("comment_karma", comment));
  facts.push(...isoOf(num(a, "created_utc")));
  facts.push(fact("items", items.length));
  facts.push(...nextHint(target, dataOf(data)?.after));
  const markdown = `${renderAbout(target.name, a)}\n${
    renderListing(
      target.tab === "submitted"
        ? "Recent posts"
        : target.tab === "comments"
        ? "Recent comments"
        : "Recent posts and comments",
      items,
      true,
    ).replace(/^# /, "## ")
  }`;
  return new Document({
    url: pageUrl(target),
    kind: "record",
    title: "",
    markdown,
    source: "reddit",
    facts,
  });
}

/** Loads the Document for a Reddit URL. */
export async function loadReddit(url: URL, signal?: AbortSignal): Promise<Document> {
  const target = parseRedditUrl(url);
  if (!target) throw new ContentError(`${url.hostname} is not a Reddit host`);
  if (target.kind === "unsupported") {
    throw new ContentError(
      `Cannot read this Reddit URL: ${target.reason}. Supported: posts (/r/<sub>/comments/<id>/), comment permalinks, redd.it/<id>, subreddit listings (/r/<sub>/<hot|new|top|rising|controversial>/, t= and after=), search (/search?q=<words>, /r/<sub>/search?q=<words>) and user pages (/user/<name>/)`,
    );
  }
  if (target.kind === "post") return await loadPost(target, signal);
  if (target.kind === "listing") return await loadListing(target, signal);
  if (target.kind === "search") return await loadSearch(target, signal);
  return await loadUser(target, signal);
}

/** The Reddit source. */
export const redditSource: Source = {
  name: "reddit",
  detect: (url: URL): boolean => isRedditHost(url),
  load: (url: URL, options: LoadOptions): Promise<Document> => loadReddit(url, options.signal),
};
