/**
 * Reddit: the source that serves reddit.com (www, old, new, np) and redd.it
 * URLs through Reddit's JSON API, never the HTML site.
 *
 * - Posts: the post, then its comment tree, one heading per comment
 *   (`## <id> · u/author · N points · N chars`, replies one level deeper),
 *   addressable by the comment id: `section=<id>` reads one subthread and
 *   `web_fetch_sections` lists the tree. Replies Reddit did not send
 *   (`more` stubs) are said in place and in a note, with how to load them.
 * - Comment permalinks: the post and that comment's subthread only.
 * - Subreddit listings (hot, new, top, rising, controversial; `t=`,
 *   `after=`) and user pages (about, then recent posts and comments): 25
 *   items, the next page's URL in a hint.
 * - Deleted and removed posts and comments are said as such; private,
 *   quarantined, gated and banned subreddits, missing and suspended users
 *   are errors that say what happened.
 *
 * Access (OAuth or the public JSON endpoints) is in `reddit_api.ts`.
 *
 * @module
 */
import { hint, messageFact, ph, readOutline, readPage } from "../../hint.ts";
import { Document, type DocumentFact } from "../../content/document.ts";
import { trusted } from "../../trust.ts";
import { type Access, RedditContentError, redditJson } from "./api.ts";
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
  SORTS,
  SUBREDDIT,
  TIMES,
  USER_TABS,
  USERNAME,
} from "./urls.ts";
import type { Source } from "../router.ts";
import type { LoadOptions } from "../web.ts";

/** Kinds of Reddit Documents, as the frontmatter's `type` says them. */
export const REDDIT_TYPES = ["post", "comment", "subreddit", "front_page", "user"] as const;

type Target = Exclude<RedditTarget, { kind: "unsupported" }>;

function fact(key: string, value: DocumentFact["value"]): DocumentFact {
  return { key, value };
}

function apiFact(access: Access): DocumentFact {
  return fact(
    "api",
    access === "oauth"
      ? trusted.text`Reddit (oauth.reddit.com, application-only OAuth)`
      : trusted.text`Reddit (public JSON endpoints of www.reddit.com)`,
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
  const what = target.comment
    ? `comment ${target.comment} of post ${target.id}`
    : `post ${target.id}`;
  const { data, access } = await redditJson(apiPath(target), what, signal);
  if (!Array.isArray(data) || data.length < 2) {
    throw new RedditContentError(
      `Reddit's answer for ${what} was not the pair of listings (post, comments) it documents; try again later`,
    );
  }
  const post = dataOf(children(data[0])[0]);
  if (!post || children(data[0])[0].kind !== "t3") {
    throw new RedditContentError(
      `Not found on Reddit: post ${target.id} is not in the answer; check the id`,
    );
  }
  let comments = children(data[1]);
  if (target.comment) {
    // The API scopes to the comment already; scoping here too keeps the answer right either way.
    const focus = findComment(comments, target.comment);
    if (focus) comments = [focus];
  }
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
      throw new RedditContentError(
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
    throw new RedditContentError(
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

async function loadUser(
  target: Extract<Target, { kind: "user" }>,
  signal?: AbortSignal,
): Promise<Document> {
  const who = `the user u/${target.name}`;
  const about = await redditJson(`/user/${target.name}/about?raw_json=1`, who, signal);
  const a = dataOf(about.data);
  if (str(about.data, "kind") !== "t2" || !a) {
    throw new RedditContentError(
      `Not found on Reddit: ${who} does not exist, or the account was deleted`,
    );
  }
  if (a.is_suspended === true) {
    throw new RedditContentError(
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
  if (!target) throw new RedditContentError(`${url.hostname} is not a Reddit host`);
  if (target.kind === "unsupported") {
    throw new RedditContentError(
      `Cannot read this Reddit URL: ${target.reason}. Supported: posts (/r/<sub>/comments/<id>/), comment permalinks, redd.it/<id>, subreddit listings (/r/<sub>/<hot|new|top|rising|controversial>/, t= and after=) and user pages (/user/<name>/)`,
    );
  }
  if (target.kind === "post") return await loadPost(target, signal);
  if (target.kind === "listing") return await loadListing(target, signal);
  return await loadUser(target, signal);
}

/** The Reddit source. */
export const redditSource: Source = {
  name: "reddit",
  detect: (url: URL): boolean => isRedditHost(url),
  load: (url: URL, options: LoadOptions): Promise<Document> => loadReddit(url, options.signal),
};
