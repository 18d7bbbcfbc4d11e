/**
 * The one way a page is loaded for a request, on every face (MCP tools, the
 * HTTP API, the CLI, the library's `fetchPage`): {@link readPage} checks the
 * URL and the view, renders the page in the headless browser when the
 * request asks for it (or says why it did not), loads it within the call's
 * page-size limit otherwise, applies a fragment its source reads itself,
 * refuses a page with no text, and waits for what views need (the
 * tokenizer, for every view but the outline, and the indexes a search,
 * slices or a question read). It
 * returns the Document with the facts a face renders: cached, source,
 * renderer, final URL (the Document's). {@link viewPage} is the view of
 * that page, after which the page cache counts what the view built (and,
 * after a search, the page's slices are counted for the next one, in the
 * background).
 *
 * A face parses with the request schema, calls these two and renders; it
 * loads nothing itself. Failures are thrown in the error vocabulary
 * (`lib/errors.ts`, `PageTooLarge`, `RequestError`), mapped once per face.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import { countSlicesLater } from "../content/document/views.ts";
import { shapeUnitsLater } from "../content/question/extract.ts";
import { tokenizerReady } from "../content/tokens/count.ts";
import { ContentError, ToolError } from "../errors.ts";
import type { RenderInfo, RenderLoadOptions } from "../render/document.ts";
import {
  cacheKey,
  fragmentView,
  loadDocument,
  ownsFragment,
  pageCache,
  recount,
  sourceName,
} from "../sources/router.ts";
import type { LoadOptions, LoadStage } from "../sources/source.ts";
import { type Loader, loadWithinLimit } from "./limit.ts";
import { type PageUrl, pageUrl } from "./page.ts";
import {
  chooseView,
  type OutlineRequest,
  type PageRequest,
  type ViewKind,
  viewUsesIndex,
} from "./request.ts";
import { view, type ViewOptions, type ViewResult } from "./view.ts";

export type { Loader };

/** What a face needs besides the request; every field has a default. */
export interface ReadOptions {
  /** Loads a page; the router's `loadDocument` (cache, sources, web) by default. */
  load?: Loader;
  /** The source adapter name of a URL; the router's by default. */
  sourceOf?: (url: string) => string;
  /** Whether `file://` URLs may be read (the CLI's loader reads them). */
  files?: boolean;
  /** Cancels the load. */
  signal?: AbortSignal;
  /** Called as each stage of a static load begins. */
  onStage?: (stage: LoadStage) => void;
  /** Called as each step of a render begins. */
  onRenderStep?: (step: number, total: number, message: string) => void;
  /**
   * A cap on the body in bytes instead of the request's `max_page_mb` (the
   * library's caller is its own operator, not bounded by the ceiling).
   */
  maxBytes?: number;
  /** Wait for the page's indexes whatever the view (the library's search is synchronous). */
  needsIndex?: boolean;
  /**
   * A page with no text: `refuse` throws a {@link ContentError} (`no_text`,
   * or `javascript_shell` for a page JavaScript builds); `shell` refuses only
   * the first and returns a shell with `shell: true`, for a face that answers
   * with how to render it; `keep` returns any page.
   */
  empty?: "refuse" | "shell" | "keep";
}

/** A render the request asked for, and what it added. */
export interface RenderedRead {
  /** The engine, the interactive elements, refused requests, the frame or app waited for. */
  info: RenderInfo;
  /** A first render of a page never seen as a JavaScript shell (the static read is cheaper). */
  premature: boolean;
}

/** A page read for a request, with the facts each face renders. */
export interface PageRead {
  /** The request URL, split into the page and its fragment. */
  url: PageUrl;
  /** The Document (for the whole page: the view a fragment its source reads selects). */
  doc: Document;
  /** True when served from the page cache. */
  cached: boolean;
  /** The source that made the Document: `web`, or a first-party API such as `github`. */
  source: string;
  /** The view the request asks for (`outline` for an outline request). */
  view: ViewKind | "outline";
  /** Whether the URL's fragment is its source's own address form (GitHub's `#L10-L20`). */
  ownsFragment: boolean;
  /** Whether `full_page` was asked for. */
  fullPage: boolean;
  /** A page with no text that JavaScript builds (only with `empty: "shell"`). */
  shell: boolean;
  /** The render, when the request asked for one and the page was rendered. */
  rendered?: RenderedRead;
  /** Why a render that was asked for did not happen. */
  skipped?: { source: true } | { notForBrowser: string };
  /** Lets the page cache count what a view built (slices, the search and question indexes). */
  recount(): void;
}

/** What a request names, checked before anything is read. */
export interface ReadTarget {
  /** The request URL, split into the page and its fragment. */
  url: PageUrl;
  /** The view it asks for. */
  view: ViewKind | "outline";
  /** Whether the URL's fragment is its source's own address form. */
  ownsFragment: boolean;
}

/**
 * The URL and the view a request names (an outline request with
 * `outline`), checked: a URL that cannot be read, or views that conflict,
 * throw before anything is fetched (they are the caller's to fix).
 */
export function readTarget(
  request: PageRequest | OutlineRequest,
  options: Pick<ReadOptions, "files"> & { outline?: boolean } = {},
): ReadTarget {
  const url = pageUrl(request.url, options.files ?? false);
  const owns = ownsFragment(url.page, url.fragment);
  const view = options.outline
    ? "outline"
    : chooseView(request as PageRequest, url.fragment, owns).view.kind;
  return { url, view, ownsFragment: owns };
}

/**
 * Reads the page a request names (an outline request with `outline`); see
 * the module's notes.
 */
export async function readPage(
  request: PageRequest | OutlineRequest,
  options: ReadOptions & { outline?: boolean } = {},
): Promise<PageRead> {
  const load = options.load ?? loadDocument;
  const sourceOf = options.sourceOf ?? sourceName;
  const signal = options.signal;
  const { url, view: kind, ownsFragment: owns } = readTarget(request, options);
  const fullPage = request.full_page ?? false;
  const page: Partial<PageRequest> = options.outline ? {} : request as PageRequest;
  const actions = page.actions ?? [];
  let rendered: RenderedRead | undefined;
  let skipped: PageRead["skipped"];
  let loaded: { doc: Document; cached: boolean } | undefined;
  let recountRendered: (() => void) | undefined;
  if (page.requires_js === true || actions.length > 0) {
    if (url.href.startsWith("file:")) {
      throw new ToolError(
        "rendering with JavaScript reads web pages only; read this file without it",
      );
    }
    const render = await import("../render/document.ts");
    const renderOptions: RenderLoadOptions = {
      actions,
      fullPage,
      allowOffsite: page.allow_offsite ?? false,
      signal,
      onStage: options.onRenderStep,
    };
    // The tip is for a first render of a page never seen as a JavaScript shell.
    const premature = actions.length === 0 && !pageCache().has(cacheKey(url.page, fullPage)) &&
      !render.renderedCached(url.page, fullPage);
    // First-party sources answer from their APIs, PDFs through the static path.
    const outcome = await render.renderOrSkip(
      url.page,
      () => render.loadRendered(url.page, renderOptions),
    );
    if ("rendered" in outcome) {
      const { doc, info, cached } = outcome.rendered;
      loaded = { doc, cached };
      rendered = { info, premature };
      recountRendered = () => render.recountRendered(url.page, renderOptions, doc);
    } else {
      skipped = outcome.skipped === "source" ? { source: true } : { notForBrowser: outcome.what };
    }
  }
  if (!loaded) {
    const loadOptions: Omit<LoadOptions, "maxBytes"> = {
      signal,
      fullPage,
      onStage: options.onStage,
      needsIndex: options.needsIndex ?? (kind !== "outline" && viewUsesIndex(kind)),
    };
    // One cap for every view: the page a section or a question can read, the whole view reads too.
    loaded = options.maxBytes === undefined
      ? await loadWithinLimit(load, url.page, request.max_page_mb, loadOptions)
      : await load(url.page, { ...loadOptions, maxBytes: options.maxBytes });
  }
  signal?.throwIfAborted();
  // A fragment the source reads itself (GitHub's #L10-L20) selects its view of the cached page.
  // (Only for the whole page: the other views re-store the Document they index.)
  const { cached } = loaded;
  const doc = (kind === "page" && await fragmentView(url.page, loaded.doc, url.fragment)) ||
    loaded.doc;
  const shell = doc.markdown.trim() === "" && doc.jsShell;
  if (doc.markdown.trim() === "" && options.empty !== "keep") refuseEmpty(doc, url, options);
  // Budgets hold in real tokens: views count what they return with the tokenizer (an outline
  // shows estimates, and its face loads the tables when its answer may reach the cap).
  if (kind !== "outline") await tokenizerReady();
  return {
    url,
    doc,
    cached,
    // The source that made the Document (a forum page read through its API says so); the
    // URL's source when the Document came from the generic web path.
    source: doc.source !== "web" ? doc.source : sourceOf(url.page),
    view: kind,
    ownsFragment: owns,
    fullPage,
    shell,
    rendered,
    skipped,
    recount: recountRendered ?? (() => recount(url.page, doc, fullPage)),
  };
}

function refuseEmpty(doc: Document, url: PageUrl, options: ReadOptions): void {
  if (!doc.jsShell) {
    throw new ContentError(
      `no text could be extracted from ${url.page}; the page may be an image, a form or empty`,
      { kind: "no_text" },
    );
  }
  if (options.empty === "shell") return;
  throw new ContentError(
    `${url.page} builds its content with JavaScript and has no text of its own: render it with requires_js=true (the server needs the rendering permissions of start:render), or look for a static version or an API`,
    { kind: "javascript_shell" },
  );
}

/**
 * The view of a page read for `request`, with its fragment; afterwards the
 * page cache counts what the view built, and after a search or a slices
 * view the tokens of every slice are counted in the background
 * (`countSlicesLater`), after a question the shapes of every unit
 * (`shapeUnitsLater`).
 */
export function viewPage(
  read: PageRead,
  request: PageRequest,
  options: Omit<ViewOptions, "fragment" | "sourceOwnsFragment"> = {},
): ViewResult {
  const result = view(read.doc, request, {
    ...options,
    fragment: read.url.fragment,
    sourceOwnsFragment: read.ownsFragment,
  });
  if (result.grewIndex) read.recount();
  // The next search is likely: count the page's slices while the agent reads this answer.
  if (result.kind === "search" || result.kind === "slices") countSlicesLater(read.doc);
  // And the next question: work out how the page's units read and what answers they give.
  if (result.kind === "query") shapeUnitsLater(read.doc);
  return result;
}
