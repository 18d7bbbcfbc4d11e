/**
 * A rendered page as a Document: the rendered HTML goes through the same
 * content pipeline as a fetched page, and the Document is cached apart from
 * the static one (page cache variant `rendered`, keyed by the page, the
 * full_page choice and the actions).
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import { pageCache, sourceName } from "../sources/router.ts";
import { type PageKey, renderedPageKey } from "../net/page_key.ts";
import type { InteractiveElement } from "./elements.ts";
import { type Action, NotForBrowser, type Rendered, renderPage } from "./render.ts";

/** What a render adds to its Document. */
export interface RenderInfo {
  /** The page's interactive elements. */
  elements: InteractiveElement[];
  /** The engine that rendered it. */
  engine: Rendered["engine"];
  /** The engine choice's remark. */
  remark?: Rendered["remark"];
  /** Requests the guard refused. */
  blocked: Rendered["blocked"];
  /** The embedded frame the content came from. */
  frame?: string;
  /** The app framework waited for. */
  app?: Rendered["app"];
}

const infos = new WeakMap<Document, RenderInfo>();

/** Options of a rendered load. */
export interface RenderLoadOptions {
  /** Actions, in order. */
  actions: Action[];
  /** Keep the whole page. */
  fullPage: boolean;
  /** Let the top frame leave the requested host. */
  allowOffsite: boolean;
  /** Cancels the render. */
  signal?: AbortSignal;
  /** Stage reports. */
  onStage?: (step: number, total: number, message: string) => void;
}

/** The cache key of a rendered page: the page, full_page, the top-frame rule and the actions. */
export function renderedKey(page: string, options: RenderLoadOptions): PageKey {
  return renderedPageKey(page, options);
}

/** Whether a rendered Document of `page` (without actions) is cached. */
export function renderedCached(page: string, fullPage: boolean): boolean {
  return pageCache().has(renderedKey(page, { actions: [], fullPage, allowOffsite: false })) ||
    pageCache().has(renderedKey(page, { actions: [], fullPage, allowOffsite: true }));
}

/** Re-stores a rendered Document whose size grew (slices or index built), so the cache counts it. */
export function recountRendered(page: string, options: RenderLoadOptions, doc: Document): void {
  const key = renderedKey(page, options);
  if (pageCache().has(key) && pageCache().get(key) === doc) pageCache().set(key, doc);
}

/** Loads the rendered Document of `page`, from the cache or the browser. */
export async function loadRendered(
  page: string,
  options: RenderLoadOptions,
): Promise<{ doc: Document; info: RenderInfo; cached: boolean }> {
  const key = renderedKey(page, options);
  const hit = pageCache().get(key);
  const hitInfo = hit && infos.get(hit);
  if (hit && hitInfo) return { doc: hit, info: hitInfo, cached: true };
  const rendered = await renderPage(page, {
    actions: options.actions,
    allowOffsite: options.allowOffsite,
    signal: options.signal,
    onStage: options.onStage,
  });
  const { htmlDocument } = await import("../content/pipeline.ts");
  const doc = htmlDocument(rendered.html, rendered.url, { fullPage: options.fullPage });
  const info: RenderInfo = {
    elements: rendered.elements,
    engine: rendered.engine,
    remark: rendered.remark,
    blocked: rendered.blocked,
    frame: rendered.frame,
    app: rendered.app,
  };
  infos.set(doc, info);
  pageCache().set(key, doc);
  return { doc, info, cached: false };
}

/** A render a request asked for, or why the page is read without the browser. */
export type RenderOutcome<T> =
  | { rendered: T }
  | { skipped: "source" }
  | { skipped: "not_for_browser"; what: string };

/**
 * The one rule for a request that asks for rendering (requires_js or
 * actions), on every face: a first-party source's URL is answered from its
 * API, and a PDF or a download is read through the static path; any other
 * page is rendered by `render`.
 */
export async function renderOrSkip<T>(
  page: string,
  render: () => Promise<T>,
): Promise<RenderOutcome<T>> {
  if (sourceName(page) !== "web") return { skipped: "source" };
  if (/\.pdf$/i.test(new URL(page).pathname)) return { skipped: "not_for_browser", what: "a PDF" };
  try {
    return { rendered: await render() };
  } catch (error) {
    if (error instanceof NotForBrowser) return { skipped: "not_for_browser", what: error.what };
    throw error;
  }
}
