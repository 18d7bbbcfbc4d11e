/**
 * Reddit URLs: which shapes the Reddit source serves, and the API path of
 * each. Hosts: reddit.com and its www, old, new and np subdomains, and
 * redd.it short links (a post id).
 *
 * - Posts: `/r/SUB/comments/ID[/slug]`, `/comments/ID`, `redd.it/ID`;
 *   comment permalinks `/r/SUB/comments/ID/slug/COMMENT`.
 * - Subreddit listings: `/r/SUB[/hot|new|top|rising|controversial]`, and
 *   the front page; `t=` (top and controversial), `after=` (pagination).
 * - User pages: `/user/NAME` or `/u/NAME`, with `/overview`, `/submitted`
 *   or `/comments`; `after=` pages.
 * - Search: `/search?q=WORDS` (all of Reddit) and `/r/SUB/search?q=WORDS`
 *   (that subreddit unless `restrict_sr=0`), with `sort=`, `t=` and
 *   `after=`.
 *
 * @module
 */

/** Listing sorts. */
export const SORTS = ["hot", "new", "top", "rising", "controversial"] as const;
/** Time windows of `top` and `controversial`. */
export const TIMES = ["hour", "day", "week", "month", "year", "all"] as const;
/** Comment sorts of a thread (`?sort=`). */
export const COMMENT_SORTS = ["confidence", "top", "new", "controversial", "old", "qa"] as const;
/** Sorts of search results. */
export const SEARCH_SORTS = ["relevance", "hot", "top", "new", "comments"] as const;
/** Longest search query passed on (Reddit caps queries at 512 characters). */
export const MAX_SEARCH_QUERY = 512;
/** User page tabs. */
export const USER_TABS = ["overview", "submitted", "comments"] as const;

/** Reddit's base-36 ids of posts and comments. */
export const ID = /^[a-z0-9]{1,13}$/;
/** Subreddit names (letters, digits, underscores; 2 to 21). */
export const SUBREDDIT = /^[A-Za-z0-9][A-Za-z0-9_]{1,20}$/;
/** User names (letters, digits, `_` and `-`; 3 to 20). */
export const USERNAME = /^[A-Za-z0-9_-]{3,20}$/;
/** Pagination cursors (`t3_abc`, `t1_abc`). */
export const CURSOR = /^t[1-6]_[a-z0-9]{1,13}$/;

/** What a Reddit URL names. */
export type RedditTarget =
  | { kind: "post"; id: string; subreddit?: string; comment?: string; sort?: string }
  | {
    kind: "listing";
    subreddit?: string;
    sort: typeof SORTS[number];
    t?: typeof TIMES[number];
    after?: string;
  }
  | { kind: "user"; name: string; tab: typeof USER_TABS[number]; after?: string }
  | {
    kind: "search";
    q: string;
    subreddit?: string;
    sort?: typeof SEARCH_SORTS[number];
    t?: typeof TIMES[number];
    after?: string;
  }
  | { kind: "unsupported"; reason: string };

const HOSTS = /^(?:(?:www|old|new|np)\.)?reddit\.com$/;

/** Whether `url` is on a Reddit host this source claims. */
export function isRedditHost(url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  return (url.protocol === "https:" || url.protocol === "http:") &&
    (HOSTS.test(host) || host === "redd.it");
}

function oneOf<T extends string>(list: readonly T[], value: string | null): T | undefined {
  return value !== null && (list as readonly string[]).includes(value) ? value as T : undefined;
}

function cursor(url: URL): string | undefined {
  const after = url.searchParams.get("after");
  return after !== null && CURSOR.test(after) ? after : undefined;
}

/** What `url` names (undefined when it is not on a Reddit host). */
export function parseRedditUrl(url: URL): RedditTarget | undefined {
  if (!isRedditHost(url)) return undefined;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const parts = url.pathname.split("/").filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  // A `.json` suffix on the last segment is the same page.
  if (parts.length && parts.at(-1)!.endsWith(".json")) {
    parts[parts.length - 1] = parts.at(-1)!.slice(0, -5);
    if (!parts.at(-1)) parts.pop();
  }
  if (host === "redd.it") {
    const id = parts[0]?.toLowerCase();
    if (parts.length === 1 && id && ID.test(id)) return { kind: "post", id };
    return { kind: "unsupported", reason: "a redd.it link is https://redd.it/<post id>" };
  }
  const sortParam = oneOf(COMMENT_SORTS, url.searchParams.get("sort"));
  let subreddit: string | undefined;
  let rest = parts;
  if (parts[0]?.toLowerCase() === "r" && parts[1]) {
    if (!SUBREDDIT.test(parts[1])) {
      return { kind: "unsupported", reason: `'${parts[1].slice(0, 40)}' is not a subreddit name` };
    }
    subreddit = parts[1];
    rest = parts.slice(2);
  }
  if (rest[0]?.toLowerCase() === "comments") {
    const id = rest[1]?.toLowerCase();
    if (!id || !ID.test(id)) {
      return { kind: "unsupported", reason: "a post URL is /r/<subreddit>/comments/<post id>/" };
    }
    const comment = rest[3]?.toLowerCase();
    if (comment !== undefined && !ID.test(comment)) {
      return { kind: "unsupported", reason: `'${rest[3].slice(0, 40)}' is not a comment id` };
    }
    return { kind: "post", id, subreddit, comment, sort: sortParam };
  }
  if (rest.length === 1 && rest[0].toLowerCase() === "search") {
    const q = (url.searchParams.get("q") ?? "").replace(/\s+/g, " ").trim();
    if (!q) {
      return { kind: "unsupported", reason: "a search URL needs its words in q= (/search?q=...)" };
    }
    // On a subreddit, Reddit searches only it unless restrict_sr is off.
    const restrict = url.searchParams.get("restrict_sr");
    const within = subreddit && !(restrict === "0" || restrict === "false" || restrict === "off");
    return {
      kind: "search",
      q: q.slice(0, MAX_SEARCH_QUERY),
      subreddit: within ? subreddit : undefined,
      sort: oneOf(SEARCH_SORTS, url.searchParams.get("sort")),
      t: oneOf(TIMES, url.searchParams.get("t")),
      after: cursor(url),
    };
  }
  if (!subreddit && (parts[0] === "user" || parts[0] === "u") && parts[1]) {
    if (!USERNAME.test(parts[1])) {
      return {
        kind: "unsupported",
        reason: `'${parts[1].slice(0, 40)}' is not a Reddit user name`,
      };
    }
    const tab = parts[2] === undefined ? "overview" : oneOf(USER_TABS, parts[2]);
    if (!tab || parts.length > 3) {
      return {
        kind: "unsupported",
        reason: "user pages are /user/<name>, /user/<name>/submitted or /user/<name>/comments",
      };
    }
    return { kind: "user", name: parts[1], tab, after: cursor(url) };
  }
  if (rest.length <= 1 && (parts.length === 0 || subreddit)) {
    const sort = rest.length === 0 ? "hot" : oneOf(SORTS, rest[0].toLowerCase());
    if (sort) {
      const t = sort === "top" || sort === "controversial"
        ? oneOf(TIMES, url.searchParams.get("t"))
        : undefined;
      return { kind: "listing", subreddit, sort, t, after: cursor(url) };
    }
  }
  return {
    kind: "unsupported",
    reason:
      "this Reddit page is not one the Reddit source reads (posts, comment permalinks, subreddit listings, search and user pages are)",
  };
}

/** The API path and query of a target (without host), in a fixed order. */
export function apiPath(target: Exclude<RedditTarget, { kind: "unsupported" }>): string {
  const q = new URLSearchParams();
  let path: string;
  if (target.kind === "post") {
    path = `/comments/${target.id}`;
    if (target.comment) q.set("comment", target.comment);
    q.set("limit", "500");
    if (target.sort) q.set("sort", target.sort);
  } else if (target.kind === "listing") {
    path = `${target.subreddit ? `/r/${target.subreddit}` : ""}/${target.sort}`;
    q.set("limit", "25");
    if (target.t) q.set("t", target.t);
    if (target.after) q.set("after", target.after);
  } else if (target.kind === "search") {
    path = `${target.subreddit ? `/r/${target.subreddit}` : ""}/search`;
    q.set("q", target.q);
    if (target.subreddit) q.set("restrict_sr", "on");
    q.set("limit", "25");
    if (target.sort) q.set("sort", target.sort);
    if (target.t) q.set("t", target.t);
    if (target.after) q.set("after", target.after);
  } else {
    path = `/user/${target.name}/${target.tab}`;
    q.set("limit", "25");
    if (target.after) q.set("after", target.after);
  }
  q.set("raw_json", "1");
  return `${path}?${q}`;
}

/** The canonical www.reddit.com URL of a target. */
export function canonicalUrl(target: Exclude<RedditTarget, { kind: "unsupported" }>): string {
  const base = "https://www.reddit.com";
  if (target.kind === "post") {
    const sub = target.subreddit ? `/r/${target.subreddit}` : "";
    return `${base}${sub}/comments/${target.id}/${target.comment ? `_/${target.comment}/` : ""}`;
  }
  const q = new URLSearchParams();
  if (target.kind === "search") {
    q.set("q", target.q);
    if (target.subreddit) q.set("restrict_sr", "1");
    if (target.sort) q.set("sort", target.sort);
    if (target.t) q.set("t", target.t);
    if (target.after) q.set("after", target.after);
    return `${base}${target.subreddit ? `/r/${target.subreddit}` : ""}/search/?${q}`;
  }
  if (target.kind === "listing") {
    if (target.t) q.set("t", target.t);
    if (target.after) q.set("after", target.after);
    const sub = target.subreddit ? `/r/${target.subreddit}` : "";
    return `${base}${sub}/${target.sort}/${q.size ? `?${q}` : ""}`;
  }
  if (target.after) q.set("after", target.after);
  return `${base}/user/${target.name}/${target.tab === "overview" ? "" : `${target.tab}/`}${
    q.size ? `?${q}` : ""
  }`;
}
