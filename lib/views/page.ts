/**
 * What every face says about a page besides its view: the request URL split
 * into page and fragment, the page's own facts (source, final URL, content
 * type, cache, extraction share, source facts), and the frontmatter block a
 * view result becomes, with its hints rendered for one face.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import { APPEND_KEYS, type AppendKey, Frontmatter } from "../envelope/frontmatter.ts";
import type { FencedPart, ResponseSpec } from "../envelope/response.ts";
import { sanitizeLabel } from "../envelope/fence.ts";
import { isTrusted, trusted } from "../trust.ts";
import { checkUrl } from "../net/fetch.ts";
import { withoutFragment } from "../sources/router.ts";
import { type HintContext, type Message, renderMessage, shown, warning } from "../hint.ts";
import type { Fact, ViewResult } from "./view.ts";
import { bodyTitle, droppedNote } from "./view.ts";

export { bodyTitle, fenceTitle } from "./view.ts";

/** Document kinds as frontmatter shows them. */
export const CONTENT_KINDS = ["html", "markdown", "text", "json", "xml", "pdf", "record"] as const;

/** Share of a page's text left out above which the frontmatter says so. */
export const DROPPED_NOTE_SHARE = 0.3;

/** A request URL split into the page and its fragment. */
export interface PageUrl {
  /** The URL as given (fragment included). */
  href: string;
  /** Without fragment. */
  page: string;
  /** The fragment, decoded, or undefined. */
  fragment?: string;
}

/** Checks and splits a request URL; local file URLs are allowed only where `files` is true. */
export function pageUrl(input: string, files = false): PageUrl {
  const trimmed = input.trim();
  if (!(files && trimmed.startsWith("file://"))) checkUrl(trimmed);
  const hash = trimmed.indexOf("#");
  let fragment: string | undefined;
  if (hash >= 0 && hash < trimmed.length - 1) {
    fragment = trimmed.slice(hash + 1);
    try {
      fragment = decodeURIComponent(fragment);
    } catch { /* keep as is */ }
  }
  return { href: trimmed, page: withoutFragment(trimmed), fragment };
}

/** The facts and messages of a page that every view of it starts with. */
export interface PageHead {
  /** Facts, in order. */
  facts: Fact[];
  /** Notes and warnings. */
  messages: Message[];
}

/** What every view of `doc` says first. */
export function pageHead(url: PageUrl, doc: Document, cached: boolean, fullPage = false): PageHead {
  const facts: Fact[] = [];
  const messages: Message[] = [];
  try {
    facts.push(["source", trusted.url(url.href)]);
  } catch {
    // file:// URLs (CLI) are not http(s): name the document by its path instead.
    facts.push(["source", trusted.echo(url.href, 1000)]);
  }
  if (doc.url !== url.page) {
    try {
      facts.push(["final_url", trusted.url(doc.url)]);
    } catch { /* not http(s) */ }
  }
  facts.push(["content_type", trusted.oneOf(CONTENT_KINDS, doc.kind)]);
  if (doc.kind === "pdf" && doc.pages !== undefined) facts.push(["pages", doc.pages]);
  if (cached) facts.push(["cached", true]);
  if (fullPage) facts.push(["full_page", true]);
  else if (doc.kind === "html" && doc.droppedShare >= DROPPED_NOTE_SHARE) {
    facts.push(["dropped_text_share", Math.round(doc.droppedShare * 100) / 100]);
    messages.push(droppedNote(Math.round(doc.droppedShare * 100)));
  }
  if (doc.degraded) {
    messages.push(
      warning`fetched through a proxy: the proxy resolved the host, so the private-address check could not be enforced`,
    );
  }
  return { facts, messages };
}

// Bidirectional controls: shown by their code point in the readable URL, never as themselves.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Where redirects led, as a person reads it (percent-escapes decoded, on one
 * line, bidirectional controls shown as `<U+202E>`), for the fence: the
 * frontmatter's `final_url` holds only the strictly encoded form, and none
 * when the URL is not a valid http(s) URL of at most 8,192 characters.
 * Undefined when there was no redirect, or the readable form is the encoded one.
 */
export function finalUrlLine(url: PageUrl, doc: Document): string | undefined {
  if (doc.url === url.page) return undefined;
  let encoded: string | undefined;
  try {
    encoded = String(trusted.url(doc.url));
  } catch { /* not in the frontmatter: the fence says it */ }
  // Each run of escapes decoded on its own, so one malformed escape leaves the rest readable.
  let readable = doc.url.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
  readable = sanitizeLabel(
    readable.replace(BIDI, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase()}>`),
    2000,
  );
  if (readable === encoded) return undefined;
  return `Final URL (after redirects): ${readable}`;
}

/** Puts facts and rendered messages into a frontmatter block. */
export function fillFrontmatter(
  fm: Frontmatter,
  facts: readonly Fact[],
  messages: readonly Message[],
  ctx: HintContext,
): Frontmatter {
  for (const [key, value] of facts) {
    if (fm.has(key)) continue;
    fm.set(key, value);
  }
  for (const m of messages) {
    if (shown(m, ctx)) fm.append(m.kind, trusted.echo(renderMessage(m, ctx), 2000));
  }
  return fm;
}

/**
 * Source facts of a Document (a source's own hints and notes included): a
 * message is rendered for `ctx`'s face and left out where a tool it names is
 * not active (every face but MCP, and MCP when the tool is off); a plain fact
 * marked `mcpOnly` is left out of the other faces.
 */
export function sourceFacts(fm: Frontmatter, doc: Document, ctx: HintContext): void {
  for (const fact of doc.facts) {
    if (fact.mcpOnly && ctx.face !== "mcp") continue;
    if (fact.message) {
      if (!shown(fact.message, ctx)) continue;
      fm.append(fact.message.kind, trusted.echo(renderMessage(fact.message, ctx), 2000));
    } else if ((APPEND_KEYS as readonly string[]).includes(fact.key)) {
      const values = Array.isArray(fact.value) ? fact.value : [fact.value];
      for (const v of values) if (isTrusted(v)) fm.append(fact.key as AppendKey, v);
    } else fm.set(fact.key, fact.value);
  }
}

/**
 * The frontmatter every page view starts with, for tools that build their
 * own answers (the first-party source tools).
 */
export function pageFrontmatter(
  url: PageUrl,
  doc: Document,
  cached: boolean,
  fullPage = false,
  ctx: HintContext = { face: "mcp", current: "page", toolName: (t) => t },
): Frontmatter {
  const head = pageHead(url, doc, cached, fullPage);
  const fm = new Frontmatter();
  for (const [key, value] of head.facts) fm.set(key, value);
  const [warnings, others] = [
    head.messages.filter((m) => m.kind === "warning"),
    head.messages.filter((m) => m.kind !== "warning"),
  ];
  fillFrontmatter(fm, [], others, ctx);
  sourceFacts(fm, doc, ctx);
  fillFrontmatter(fm, [], warnings, ctx);
  return fm;
}

/**
 * The envelope of a view result: the page's frontmatter (already holding its
 * head), the view's facts and messages, the body and the closest names in
 * fences of their own. The page's title is the body fence's first line
 * (`# <title>`, flattened to one line of plain text; see {@link bodyTitle}),
 * so it is shown with the text on every view, behind the margin like all
 * page text; the fence's opening and closing lines hold only the server's
 * label and the id.
 */
export function envelopeSpec(
  fm: Frontmatter,
  result: ViewResult,
  ctx: HintContext,
  title?: string,
  lead?: string,
): ResponseSpec {
  fillFrontmatter(fm, result.facts, result.messages, ctx);
  const fences: FencedPart[] = [];
  if (result.body !== "") {
    // The readable form of where redirects led (the frontmatter holds its encoded form).
    const content = lead ? `${lead}\n\n${result.body}` : result.body;
    fences.push({ content, title: bodyTitle(result.body, title) });
  }
  if (result.extra) fences.push({ content: result.extra.content, label: result.extra.label });
  return { frontmatter: fm, fences };
}
