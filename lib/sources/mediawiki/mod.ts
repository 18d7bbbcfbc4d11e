/**
 * MediaWiki sites (Wikipedia, its sister projects, any other wiki) through
 * the Action API.
 *
 * - Interception: a URL whose path holds `/wiki/` on a host that answers as
 *   a MediaWiki site. Wikimedia hosts are known; any other host is probed
 *   once (`meta=siteinfo` at `/w/api.php`, then `/api.php`) and the answer
 *   is cached per host. Hosts that are not MediaWiki take the web path.
 * - Articles: `action=parse` (rendered HTML), converted by our own HTML to
 *   Markdown converter with the wiki's furniture dropped (navboxes, edit
 *   links, the table of contents, the reference list); infoboxes stay as
 *   tables, footnote markers stay as `[N]`. Sections come from the
 *   article's headings. Redirects are followed and said; disambiguation
 *   pages are noted; a missing page is an error with search suggestions.
 * - Spacing: Wikimedia hosts are in the limiter's table; other wikis pass
 *   1 s with each request.
 *
 * @module
 */
import { ContentError, oneLine } from "../../errors.ts";
import { Document, type DocumentFact } from "../../content/document/document.ts";
import { type FurniturePolicy, htmlToMarkdown } from "../../content/html/markdown.ts";
import { trusted } from "../../trust.ts";
import { callTool, messageFact, seeAlso } from "../../hint.ts";
import { defaultNet } from "../../net/default.ts";
import { NetError } from "../../net/errors.ts";
import { DEFAULT_MAX_BYTES, type FetchOptions, LARGE_MAX_BYTES } from "../../net/fetch.ts";
import { limitFor } from "../../net/limiter.ts";
import { ownedKey } from "../../net/page_key.ts";
import { fetchWebDocument } from "../web.ts";
import type { LoadOptions, Source } from "../source.ts";

/** Wikimedia project domains: their API is at `/w/api.php`, no probe needed. */
const WIKIMEDIA =
  /(?:^|\.)(?:wikipedia|wikimedia|wiktionary|wikidata|wikivoyage|wikibooks|wikiquote|wikisource|wikinews|wikiversity|wikifunctions)\.org$|^(?:www\.)?mediawiki\.org$/;

/** Sister projects by name (optionally after a language: `de.wiktionary`). */
const SISTERS: Record<string, { host: string; lang: boolean }> = {
  wikipedia: { host: "wikipedia.org", lang: true },
  wiktionary: { host: "wiktionary.org", lang: true },
  wikivoyage: { host: "wikivoyage.org", lang: true },
  wikibooks: { host: "wikibooks.org", lang: true },
  wikiquote: { host: "wikiquote.org", lang: true },
  wikisource: { host: "wikisource.org", lang: true },
  wikinews: { host: "wikinews.org", lang: true },
  wikiversity: { host: "wikiversity.org", lang: true },
  wikidata: { host: "www.wikidata.org", lang: false },
  commons: { host: "commons.wikimedia.org", lang: false },
  meta: { host: "meta.wikimedia.org", lang: false },
  species: { host: "species.wikimedia.org", lang: false },
  mediawiki: { host: "www.mediawiki.org", lang: false },
  wikifunctions: { host: "www.wikifunctions.org", lang: false },
};

const LANG = /^[a-z]{2,3}(?:-[a-z]+)*$/;
const HOST = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)+$/;

/** A wiki's API endpoint and what the probe said. */
export interface Wiki {
  /** Host name. */
  host: string;
  /** The API endpoint URL. */
  api: string;
  /** Site name from siteinfo (probed hosts only). */
  sitename?: string;
  /** Generator string (probed hosts only). */
  generator?: string;
}

/** Whether `host` is a Wikimedia project. */
export function isWikimediaHost(host: string): boolean {
  return WIKIMEDIA.test(host.toLowerCase());
}

/**
 * The host named by `wiki=`: a language code (`de`), a sister project
 * (`wiktionary`, `de.wiktionary`, `wiktionary:de`, `commons`), a host name
 * or a URL. Throws {@link ContentError} for anything else.
 */
export function wikiHost(input: string): string {
  const raw = input.trim();
  const lower = raw.toLowerCase();
  if (lower === "") return "en.wikipedia.org";
  if (/^https?:\/\//.test(lower)) {
    try {
      return new URL(raw).hostname.toLowerCase();
    } catch {
      throw new ContentError(`wiki is not a valid URL: '${raw.slice(0, 100)}'`);
    }
  }
  if (LANG.test(lower) && !(lower in SISTERS)) return `${lower}.wikipedia.org`;
  const parts = lower.split(/[.:]/);
  if (parts.length <= 2) {
    const [a, b] = parts;
    const sister = SISTERS[a] ?? (b !== undefined ? SISTERS[b] : undefined);
    const lang = SISTERS[a] ? b : a;
    if (sister) {
      if (!sister.lang) return sister.host;
      if (lang === undefined) return `en.${sister.host}`;
      if (LANG.test(lang)) return `${lang}.${sister.host}`;
    }
  }
  if (/[#?/@\\\s]/.test(raw) || !HOST.test(lower)) {
    throw new ContentError(
      `wiki must be a language code (en, de), a sister project (wiktionary, de.wiktionary, wikidata, commons, wikivoyage), a host name or a full URL; got '${
        raw.slice(0, 100)
      }'`,
    );
  }
  return lower;
}

/** Request options for `host`: Wikimedia spacing comes from the table, other wikis pass 1 s. */
function requestOptions(host: string, signal?: AbortSignal, maxBytes = DEFAULT_MAX_BYTES) {
  const options: FetchOptions = {
    signal,
    maxBytes,
    headers: { accept: "application/json" },
    retry: { retries: 1 },
    deadlineMs: 30_000,
  };
  if (limitFor(host).intervalMs === 0) options.limit = { key: host, intervalMs: 1000 };
  return options;
}

/** The outcome of a probe: the wiki, or why the host is not one. */
export type Probe = { wiki: Wiki } | { reason: string; transient?: boolean };

const probes = new Map<string, Promise<Probe>>();

async function probeOne(host: string, path: string, signal?: AbortSignal): Promise<Probe> {
  const api = `https://${host}${path}`;
  const result = await defaultNet().fetch(
    `${api}?action=query&meta=siteinfo&format=json&formatversion=2`,
    { ...requestOptions(host, signal), retry: false },
  );
  if (result.status === 401 || result.status === 403) {
    return { reason: `${api} refused access (HTTP ${result.status})` };
  }
  if (result.status !== 200) return { reason: `${api} answered HTTP ${result.status}` };
  let body: { query?: { general?: { generator?: unknown; sitename?: unknown } }; error?: unknown };
  try {
    body = result.json();
  } catch {
    return { reason: `${api} did not answer with JSON` };
  }
  const general = body?.query?.general;
  const generator = typeof general?.generator === "string" ? general.generator : "";
  if (!generator.startsWith("MediaWiki")) {
    const code = (body?.error as { code?: unknown } | undefined)?.code;
    if (code === "readapidenied" || code === "mustbeloggedin") {
      return {
        reason: `${api} serves a MediaWiki API but it is not usable anonymously (it needs a login)`,
      };
    }
    return { reason: `${api} does not answer as a MediaWiki API` };
  }
  return {
    wiki: {
      host,
      api,
      generator: /^MediaWiki [\w.-]{1,40}$/.test(generator) ? generator : "MediaWiki",
      sitename: typeof general?.sitename === "string" ? general.sitename : undefined,
    },
  };
}

async function probeHost(host: string, signal?: AbortSignal): Promise<Probe> {
  const reasons: string[] = [];
  let transient = false;
  for (const path of ["/w/api.php", "/api.php"]) {
    try {
      const probe = await probeOne(host, path, signal);
      if ("wiki" in probe) return probe;
      reasons.push(probe.reason);
    } catch (error) {
      if (error instanceof NetError && error.kind === "blocked_address") throw error;
      if (signal?.aborted) throw error;
      transient = true;
      reasons.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { reason: reasons.join("; "), transient };
}

/**
 * The wiki at `host`: Wikimedia hosts directly, others by a probe cached
 * per host (a failed probe is cached too, so the web path is not slowed).
 */
export async function resolveWiki(host: string, signal?: AbortSignal): Promise<Probe> {
  const h = host.toLowerCase();
  if (isWikimediaHost(h)) return { wiki: { host: h, api: `https://${h}/w/api.php` } };
  let probe = probes.get(h);
  if (!probe) {
    probe = probeHost(h, signal);
    probes.set(h, probe);
    // Network failures are not remembered: the next call probes again.
    probe.then((p) => "transient" in p && p.transient && probes.delete(h), () => probes.delete(h));
  }
  return await probe;
}

/** The wiki for `wiki=`, or a {@link ContentError} saying why not. */
export async function wikiFor(input: string, signal?: AbortSignal): Promise<Wiki> {
  const host = wikiHost(input);
  const probe = await resolveWiki(host, signal);
  if ("wiki" in probe) return probe.wiki;
  throw new ContentError(
    `Could not resolve wiki '${input.slice(0, 100)}' (${host}): ${probe.reason}. ` +
      "Give a language code (en, de), a sister project (wiktionary, wikidata, commons) or the host of a MediaWiki site.",
  );
}

/** A title as the wiki writes it in URLs: spaces as `_`, first letter upper-cased. */
export function canonicalTitle(title: string): string {
  const t = title.trim().replace(/\s+/g, "_");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** The article URL of `title` on `wiki`. */
export function articleUrl(wiki: Wiki, title: string): string {
  const path = encodeURIComponent(canonicalTitle(title)).replace(/%2F/g, "/").replace(/%3A/g, ":");
  return `https://${wiki.host}/wiki/${path}`;
}

/** The title in a `/wiki/` URL, or undefined. */
export function titleOfUrl(url: URL): string | undefined {
  const at = url.pathname.indexOf("/wiki/");
  if (at === -1) return undefined;
  let title = url.pathname.slice(at + 6).replace(/^\/+|\/+$/g, "");
  try {
    title = decodeURIComponent(title);
  } catch { /* keep as written */ }
  title = title.replace(/_/g, " ").trim();
  return title === "" ? undefined : title;
}

/** Turns an API failure into an error that says what to do. */
function statusError(status: number, host: string): Error {
  if (status === 429) {
    return new ContentError(
      `${host} is rate limiting (HTTP 429); wait a minute and try again, with fewer requests`,
    );
  }
  if (status >= 500) {
    return new ContentError(`${host} failed (HTTP ${status}); try again later`);
  }
  if (status === 401 || status === 403) {
    return new ContentError(
      `${host} refused the API request (HTTP ${status}); the wiki may need a login`,
    );
  }
  return new ContentError(`${host} answered HTTP ${status} to the API request`);
}

/** Calls the wiki's API with `params` and returns the parsed JSON. */
export async function apiGet(
  wiki: Wiki,
  params: Record<string, string>,
  signal?: AbortSignal,
  maxBytes = DEFAULT_MAX_BYTES,
): Promise<Record<string, unknown>> {
  const query = new URLSearchParams({ ...params, format: "json", formatversion: "2" });
  const result = await defaultNet().fetch(
    `${wiki.api}?${query.toString().replace(/%7C/g, "|")}`,
    requestOptions(wiki.host, signal, maxBytes),
  );
  if (result.status !== 200) throw statusError(result.status, wiki.host);
  let body: unknown;
  try {
    body = result.json();
  } catch {
    throw new ContentError(
      `${wiki.host} answered with malformed JSON (not a MediaWiki API answer); try again later`,
    );
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ContentError(`${wiki.host} answered with JSON that is not a MediaWiki API answer`);
  }
  return body as Record<string, unknown>;
}

/** A parsed article. */
export interface Parsed {
  /** The wiki. */
  wiki: Wiki;
  /** The title asked for. */
  asked: string;
  /** The page's title (after redirects). */
  title: string;
  /** Display title (tags stripped). */
  displayTitle: string;
  /** Rendered HTML. */
  html: string;
  /** The title the redirect came from, when one was followed. */
  redirectedFrom?: string;
  /** The page is a disambiguation page. */
  disambiguation: boolean;
}

const parsedCache = new Map<string, Parsed>();
const PARSED_KEEP = 5;

/** Strips tags and decodes the common entities of a short HTML string. */
export function plainText(html: string): string {
  return html.replace(/<[^>]*>/g, "")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&nbsp;/g, " ").replace(/&amp;/g, "&")
    .replace(/\s+/g, " ").trim();
}

/** Full-text search hits (title and snippet), for results and suggestions. */
export interface SearchHit {
  /** Page title. */
  title: string;
  /** Snippet with matches as `**bold**`. */
  snippet: string;
  /** Words. */
  words?: number;
  /** Bytes. */
  size?: number;
  /** Last edit. */
  timestamp?: string;
}

/** Search results. */
export interface SearchResults {
  /** Hits. */
  hits: SearchHit[];
  /** Total hits, when the wiki says. */
  total?: number;
}

/** Full-text search (`list=search`). */
export async function searchWiki(
  wiki: Wiki,
  query: string,
  options: { limit: number; offset: number; namespace: number; signal?: AbortSignal },
): Promise<SearchResults> {
  const body = await apiGet(wiki, {
    action: "query",
    list: "search",
    srsearch: query,
    srlimit: String(options.limit),
    sroffset: String(options.offset),
    srnamespace: String(options.namespace),
    srprop: "snippet|size|wordcount|timestamp",
  }, options.signal);
  apiFailure(body, wiki);
  const q = body.query as { search?: unknown; searchinfo?: { totalhits?: unknown } } | undefined;
  if (!q || !Array.isArray(q.search)) {
    throw new ContentError(`${wiki.host} answered the search without results (query.search)`);
  }
  const hits: SearchHit[] = [];
  for (const raw of q.search as Record<string, unknown>[]) {
    if (typeof raw?.title !== "string") continue;
    const snippet = typeof raw.snippet === "string"
      ? plainText(
        raw.snippet.replace(/<span class="searchmatch">([^<]*)<\/span>/g, "\uE000$1\uE001"),
      ).replace(/[\uE000\uE001]/g, "**")
      : "";
    hits.push({
      title: raw.title,
      snippet,
      words: typeof raw.wordcount === "number" ? raw.wordcount : undefined,
      size: typeof raw.size === "number" ? raw.size : undefined,
      timestamp: typeof raw.timestamp === "string" ? raw.timestamp : undefined,
    });
  }
  const total = q.searchinfo?.totalhits;
  return { hits, total: typeof total === "number" ? total : undefined };
}

function apiFailure(body: Record<string, unknown>, wiki: Wiki): void {
  const error = body.error as { code?: unknown } | undefined;
  if (!error) return;
  const code = typeof error.code === "string" && /^[\w-]{1,60}$/.test(error.code)
    ? error.code
    : "unknown";
  if (code === "readapidenied" || code === "mustbeloggedin") {
    throw new ContentError(`${wiki.host} does not let anonymous clients read its API (${code})`);
  }
  throw new ContentError(`${wiki.host} refused the request: API error '${code}'`);
}

/** Parses `title` on `wiki` (following redirects); a missing page is an error with suggestions. */
export async function parsePage(wiki: Wiki, title: string, signal?: AbortSignal): Promise<Parsed> {
  // Kept per principal when the page cache is (PARKOUR_CACHE_SCOPE).
  const key = ownedKey(`${wiki.host} ${canonicalTitle(title)}`);
  const hit = parsedCache.get(key);
  if (hit) return hit;
  const body = await apiGet(
    wiki,
    {
      action: "parse",
      page: title,
      prop: "text|displaytitle|properties",
      redirects: "1",
      disableeditsection: "1",
      disabletoc: "1",
      disablelimitreport: "1",
    },
    signal,
    LARGE_MAX_BYTES,
  );
  const error = body.error as { code?: unknown } | undefined;
  if (error?.code === "missingtitle" || error?.code === "invalidtitle") {
    let suggestions: string[] = [];
    try {
      suggestions = (await searchWiki(wiki, title, { limit: 5, offset: 0, namespace: 0, signal }))
        .hits.map((h) => h.title);
    } catch { /* suggestions are a courtesy */ }
    throw new ContentError(
      `${wiki.host} has no page titled '${oneLine(title)}'` +
        (suggestions.length > 0
          ? "; the wiki's search has similar titles (below): fetch one by its exact title"
          : "; check the spelling, or use action='search'"),
      {
        remote: suggestions.length > 0
          ? {
            body: suggestions.map((s) => oneLine(s)).join("\n"),
            contentType: "text/plain",
            label: "similar titles from the wiki's search",
          }
          : undefined,
      },
    );
  }
  apiFailure(body, wiki);
  const parse = body.parse as Record<string, unknown> | undefined;
  if (!parse || typeof parse.text !== "string" || typeof parse.title !== "string") {
    throw new ContentError(`${wiki.host} answered the parse request without the page's HTML`);
  }
  const redirects = Array.isArray(parse.redirects)
    ? parse.redirects as { from?: unknown; to?: unknown }[]
    : [];
  const from = redirects.find((r) => typeof r.from === "string")?.from as string | undefined;
  const properties = parse.properties;
  const disambiguation = properties !== null && typeof properties === "object" &&
    (Array.isArray(properties)
      ? properties.some((p) => (p as { name?: unknown })?.name === "disambiguation")
      : "disambiguation" in properties);
  const parsed: Parsed = {
    wiki,
    asked: title,
    title: parse.title,
    displayTitle: typeof parse.displaytitle === "string"
      ? plainText(parse.displaytitle) || parse.title
      : parse.title,
    html: parse.text,
    redirectedFrom: from !== undefined && from !== parse.title ? from : undefined,
    disambiguation,
  };
  parsedCache.set(key, parsed);
  while (parsedCache.size > PARSED_KEEP) parsedCache.delete(parsedCache.keys().next().value!);
  return parsed;
}

// Classes of wiki furniture: dropped with everything inside.
const FURNITURE_CLASS =
  /(?:^|\s)(?:navbox|navbox-styles|navbar|vertical-navbox|sistersitebox|mw-editsection|toc|mw-references-wrap|references|reflist|mw-empty-elt|noprint|metadata|mw-jump-link|catlinks|mwe-math-fallback-image-inline|mwe-math-fallback-image-display|mw-cite-backlink|shortdescription|hatnote-hidden)(?:\s|$)/;

/** What the converter drops on a wiki page. */
export const WIKI_FURNITURE: FurniturePolicy = {
  attributes: ["class", "id", "role", "style"],
  drop(tag, attrs) {
    if (tag === "style" || tag === "script") return true;
    if (attrs.id === "toc" || attrs.role === "navigation") return true;
    const cls = attrs.class;
    if (cls !== undefined && FURNITURE_CLASS.test(cls)) return true;
    if (tag === "ol" && cls !== undefined && /(?:^|\s)references(?:\s|$)/.test(cls)) return true;
    return false;
  },
};

/**
 * Infoboxes hold lists and paragraphs in their cells, which would make the
 * converter read them as layout: inside an infobox, blocks become inline
 * (items and paragraphs separated by line breaks), so it stays a table.
 */
function inlineInfoboxes(html: string): string {
  const open = /<table\b[^>]*class="[^"]*\binfobox\b[^"]*"[^>]*>/g;
  let out = "";
  let from = 0;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    if (m.index < from) continue;
    const tags = /<(\/?)table\b[^>]*>/g;
    tags.lastIndex = m.index + m[0].length;
    let depth = 1;
    let end = html.length;
    for (let t = tags.exec(html); t; t = tags.exec(html)) {
      depth += t[1] ? -1 : 1;
      if (depth === 0) {
        end = t.index + t[0].length;
        break;
      }
    }
    const box = inlineNestedTables(html.slice(m.index, end))
      .replace(/<\/(?:li|p|dd|dt)>/g, "<br>")
      .replace(/<(?:ul|ol|dl)\b[^>]*>|<\/(?:ul|ol|dl)>|<(?:li|p|dd|dt)\b[^>]*>/g, "")
      .replace(/<div\b/g, "<span").replace(/<\/div>/g, "</span>");
    out += html.slice(from, m.index) + box;
    from = end;
    open.lastIndex = end;
  }
  return out + html.slice(from);
}

/** Tables inside a table (the infobox itself is depth 1) become lines of inline text. */
function inlineNestedTables(box: string): string {
  let depth = 0;
  return box.replace(/<(\/?)(table|tbody|thead|tfoot|tr|td|th)\b[^>]*>/g, (tag, close, name) => {
    if (name === "table") {
      if (close) depth--;
      else depth++;
      if (close ? depth < 1 : depth <= 1) return tag;
      return close ? "</span>" : "<span>";
    }
    if (depth <= 1) return tag;
    if (name === "tr") return close ? "<br>" : "";
    if (name === "td" || name === "th") return close ? " " : "";
    return "";
  });
}

/** Rewrites wiki HTML before conversion: footnote markers as `[N]`, TeX for formulas. */
export function prepareHtml(html: string): string {
  return inlineInfoboxes(html)
    // Footnote markers: <sup class="reference"><a href="#cite_note-1">[1]</a></sup> → [1]
    .replace(
      /<sup\b[^>]*class="[^"]*\breference\b[^"]*"[^>]*>([\s\S]*?)<\/sup>/g,
      (_, inner: string) => {
        const text = plainText(inner);
        return /^\[[^\]]{1,20}\]$/.test(text) ? text.replace(/[<>&]/g, "") : "";
      },
    )
    // Formulas: MathML with its TeX alttext → $TeX$ (the MathML and fallback image go).
    .replace(/<math\b[^>]*?alttext="([^"]*)"[^>]*>[\s\S]*?<\/math>/g, (_, tex: string) => {
      const clean = tex.replace(/^\{\\displaystyle\s*([\s\S]*)\}$/, "$1").trim();
      return ` <code>$${clean}$</code> `;
    })
    // Formula wrappers are often hidden by style: unhide them (the fallback image is dropped).
    .replace(/<span class="mwe-math-mathml-(?:inline|display)[^"]*"[^>]*>/g, "<span>")
    .replace(/<p>\s*<span class="error[^"]*">Cite error:[\s\S]*?<\/p>/g, "");
}

/** Converts a parsed article to Markdown with its anchors. */
export function articleMarkdown(parsed: Parsed, url: string): {
  markdown: string;
  anchors: Map<string, number>;
} {
  const converted = htmlToMarkdown(prepareHtml(parsed.html), {
    baseUrl: url,
    furniture: WIKI_FURNITURE,
  });
  let markdown = converted.markdown.trim();
  const anchors = converted.anchors;
  // The title is the fence's title: no heading of its own here.
  const head = "";
  const redirect = parsed.redirectedFrom !== undefined
    ? `*(Redirected from ${parsed.redirectedFrom.replace(/[*\r\n]/g, " ")})*\n\n`
    : "";
  const shift = head.length + redirect.length;
  markdown = head + redirect + markdown + "\n";
  const shifted = new Map<string, number>();
  for (const [id, at] of anchors) shifted.set(id, at + shift);
  return { markdown, anchors: shifted };
}

/** Distinct footnote numbers and CITEREF keys referred to in an article's Markdown. */
export function referenceCounts(markdown: string): { footnotes: number[]; citerefs: string[] } {
  const footnotes = new Set<number>();
  for (const m of markdown.matchAll(/\[(\d{1,4})\]/g)) footnotes.add(Number(m[1]));
  const citerefs = new Set<string>();
  for (const m of markdown.matchAll(/\(#(CITEREF[^)\s]{1,200})\)/g)) citerefs.add(m[1]);
  return { footnotes: [...footnotes].sort((a, b) => a - b), citerefs: [...citerefs] };
}

/** Frontmatter facts of an article: the API, redirect, disambiguation, the references hint. */
function articleFacts(parsed: Parsed, markdown: string): DocumentFact[] {
  const facts: DocumentFact[] = [
    {
      key: "api",
      value: trusted.text`MediaWiki (${trusted.matching(parsed.wiki.host, HOST)})`,
    },
  ];
  if (parsed.wiki.generator) {
    facts.push({
      key: "generator",
      value: trusted.matching(parsed.wiki.generator, /^MediaWiki[\w .-]{0,40}$/),
    });
  }
  if (parsed.redirectedFrom !== undefined) {
    facts.push({
      key: "note",
      value: trusted
        .text`followed a wiki redirect: this is the page it points to (the first line names the title asked for)`,
    });
  }
  if (parsed.disambiguation) {
    facts.push({
      key: "note",
      value: trusted
        .text`this is a disambiguation page: it lists pages with similar titles; pick one and fetch it`,
    });
  }
  const { footnotes, citerefs } = referenceCounts(markdown);
  if (footnotes.length > 0 || citerefs.length > 0) {
    const parts = [];
    if (footnotes.length > 0) {
      parts.push(
        trusted.text`${footnotes.length} numbered footnote${
          footnotes.length === 1 ? trusted.text`` : trusted.text`s`
        } (footnotes=[${trusted.matching(footnotes.slice(0, 2).join(", "), /^[\d, ]+$/)}${
          footnotes.length > 2 ? trusted.text`, ...` : trusted.text``
        }])`,
      );
    }
    if (citerefs.length > 0) {
      parts.push(
        trusted.text`${citerefs.length} inline author-date citation${
          citerefs.length === 1 ? trusted.text`` : trusted.text`s`
        } (citations=["#${trusted.matching(citerefs[0], /^CITEREF[^\s"]{0,200}$/)}"${
          citerefs.length > 1 ? trusted.text`, ...` : trusted.text``
        }])`,
      );
    }
    facts.push(messageFact(
      seeAlso`${callTool("mediawiki", { action: "references" })} resolves ${
        parts.map(String).join("; ")
      }`,
    ));
  }
  return facts;
}

/** The article as a Document. */
export function articleDocument(parsed: Parsed): Document {
  const url = articleUrl(parsed.wiki, parsed.title);
  const { markdown, anchors } = articleMarkdown(parsed, url);
  return new Document({
    url,
    kind: "html",
    title: parsed.displayTitle,
    markdown,
    anchors,
    contentType: "text/html",
    facts: articleFacts(parsed, markdown),
    source: "mediawiki",
  });
}

/** Loads the article `title` of `wiki`. */
export async function loadArticle(
  wiki: Wiki,
  title: string,
  signal?: AbortSignal,
): Promise<Document> {
  return articleDocument(await parsePage(wiki, title, signal));
}

/** Special pages and actions are not articles: the web path serves them. */
function isArticleUrl(url: URL): boolean {
  if (url.searchParams.has("action") || url.searchParams.has("oldid")) return false;
  const title = titleOfUrl(url);
  return title !== undefined && !/^(?:Special|Spezial|Spécial|Especial):/i.test(title);
}

/** The source: `/wiki/` URLs on hosts that answer as MediaWiki. */
export const mediawikiSource: Source = {
  name: "mediawiki",
  detect(url: URL): boolean {
    return (url.protocol === "https:" || url.protocol === "http:") &&
      url.pathname.includes("/wiki/") && isArticleUrl(url) &&
      !/(?:^|\.)github\.com$/.test(url.hostname);
  },
  async load(url: URL, options: LoadOptions): Promise<Document> {
    const probe = await resolveWiki(url.hostname, options.signal);
    if (!("wiki" in probe)) return await fetchWebDocument(url.href, options);
    options.onStage?.("converting");
    return await loadArticle(probe.wiki, titleOfUrl(url)!, options.signal);
  },
};
