/**
 * What every source shares: the {@link Source} a first-party API module
 * exports, the options of a load and what a load gives back. A module of its
 * own, so a source imports neither the router that lists it nor the
 * generic web path.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";

/** A first-party source. */
export interface Source {
  /** Name, for logs. */
  name: string;
  /** Whether this source serves `url`. */
  detect(url: URL): boolean;
  /** Loads the Document for `url`. */
  load(url: URL, options: LoadOptions): Promise<Document>;
  /**
   * Whether a URL fragment is this source's own address form (GitHub's
   * `#L10-L20` line anchors) rather than a section name.
   */
  ownsFragment?(url: URL, fragment: string): boolean;
  /** The view a fragment it owns selects of a loaded Document, if any. */
  fragmentView?(doc: Document, fragment: string): Promise<Document | undefined>;
}

/**
 * Stages of a load, reported as they begin: `cached` (served from the page
 * cache), `fetching` (asking the source or the web), `converting` (the
 * response is in; turning it into a Document).
 */
export type LoadStage = "cached" | "fetching" | "converting";

/** Options of a load. */
export interface LoadOptions {
  /** Cap on the body. */
  maxBytes: number;
  /** Cancels the load. */
  signal?: AbortSignal;
  /** Keep the whole page: no main-content extraction. */
  fullPage?: boolean;
  /** Called as each stage of the load begins (progress for streaming callers). */
  onStage?: (stage: LoadStage) => void;
  /**
   * Whether the call's view reads the page's indexes (slices, search, a
   * question): `true` waits for indexes being built in the background, even
   * on the load this call started; `false` (an outline, a section, the whole
   * page) never waits for them; unset waits unless this call started the load.
   */
  needsIndex?: boolean;
  /**
   * The first-party sources, for a source that hands a URL on to the one
   * that reads it (a DOI of an arXiv paper goes to arXiv); the router sets
   * it, so no source imports the router.
   */
  sources?: readonly Source[];
}

/** A Document and whether it came from the cache. */
export interface Loaded {
  /** The document. */
  doc: Document;
  /** True when served from the page cache. */
  cached: boolean;
}
