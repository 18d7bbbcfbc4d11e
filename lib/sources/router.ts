/**
 * URL to Document: first-party sources claim the URLs they know, the rest
 * take the generic web path. Documents are kept in the page cache, keyed by
 * the URL without its fragment, so a follow-up call never refetches.
 *
 * A source is one module in this folder that exports a {@link Source}
 * (`source.ts`); adding one is adding it to {@link SOURCES}.
 *
 * @module
 */
import { abortable } from "../abort.ts";
import type { Document } from "../content/document/document.ts";
import type { PageCache } from "../net/cache.ts";
import { pageCacheFromEnv } from "../net/default.ts";
import { reclaimMemory } from "../runtime/memory.ts";
import { workersBusy } from "../content/workers/pool.ts";
import { keyId, type PageKey, staticKey, withoutFragment } from "../net/page_key.ts";
import { fetchWebDocument } from "./web.ts";
import type { Loaded, LoadOptions, Source } from "./source.ts";
import { sharedLoad, sharedLookup } from "./shared_cache.ts";
import { ietfSource } from "./ietf/mod.ts";
import { arxivSource } from "./arxiv.ts";
import { arxivHtmlSource } from "./arxiv_html.ts";
import { semanticScholarSource } from "./semantic_scholar.ts";
import { doiSource } from "./doi/mod.ts";
import { githubSource } from "./github/mod.ts";
import { huggingfaceSource } from "./huggingface/mod.ts";
import { redditSource } from "./reddit/mod.ts";
import { mediawikiSource } from "./mediawiki/mod.ts";

/** Sources tried before the generic web path, in order. */
export const SOURCES: Source[] = [
  arxivSource,
  arxivHtmlSource,
  semanticScholarSource,
  doiSource,
  ietfSource,
  redditSource,
  githubSource,
  huggingfaceSource,
  mediawikiSource,
];

let cache: PageCache<Document> | undefined;

/** The process's page cache of Documents. */
export function pageCache(): PageCache<Document> {
  return (cache ??= pageCacheFromEnv<Document>((doc) => doc.approxBytes(), (doc) => doc.release()));
}

function sourceOfUrl(url: string): Source | undefined {
  try {
    const parsed = new URL(url);
    return SOURCES.find((s) => s.detect(parsed));
  } catch {
    return undefined;
  }
}

/** Whether `fragment` on `url` is an address its source reads itself (not a section name). */
export function ownsFragment(url: string, fragment: string | undefined): boolean {
  if (fragment === undefined) return false;
  const source = sourceOfUrl(url);
  return source?.ownsFragment?.(new URL(url), fragment) ?? false;
}

/** The view of `doc` a source-owned fragment selects (undefined: the Document as is). */
export async function fragmentView(
  url: string,
  doc: Document,
  fragment: string | undefined,
): Promise<Document | undefined> {
  if (fragment === undefined || !ownsFragment(url, fragment)) return undefined;
  return await sourceOfUrl(url)?.fragmentView?.(doc, fragment);
}

export { withoutFragment };

/**
 * The page cache's key of a URL: without its fragment, and apart when the
 * whole page was kept (the two conversions of a page are cached apart). A
 * structured value (lib/net/page_key.ts), never a string read as a URL.
 */
export function cacheKey(url: string, fullPage = false): PageKey {
  return staticKey(url, fullPage);
}

/** Loads `url` (without its fragment) from the cache, a source, or the web. */
export async function loadDocument(url: string, options: LoadOptions): Promise<Loaded> {
  const page = withoutFragment(url);
  const key = cacheKey(page, options.fullPage);
  const hit = pageCache().get(key);
  if (hit) {
    options.onStage?.("cached");
    // Its indexes may still be coming from the worker that converted it: a view that reads
    // them waits, rather than build them a second time on this thread.
    if (options.needsIndex !== false) await hit.ready(options.signal);
    return { doc: hit, cached: true };
  }
  // The second level: another replica may have loaded it.
  const remote = await sharedLookup(keyId(key));
  if (remote) {
    pageCache().set(key, remote);
    options.onStage?.("cached");
    return { doc: remote, cached: true };
  }
  const parsed = new URL(page);
  const source = SOURCES.find((s) => s.detect(parsed));
  options.onStage?.("fetching");
  // Requests for a page already being loaded (with the same cap) wait for that load.
  const flightKey = JSON.stringify([keyId(key), options.maxBytes ?? null]);
  let flight = flights.get(flightKey);
  // A load whose waiters all cancelled is ending: a new request starts its own.
  if (flight?.controller.signal.aborted) flight = undefined;
  const joined = flight !== undefined;
  if (!flight) {
    const controller = new AbortController();
    const shared = { ...options, signal: controller.signal };
    const load = () =>
      source
        ? source.load(parsed, { ...shared, sources: SOURCES })
        : fetchWebDocument(page, shared);
    const promise = sharedLoad(keyId(key), load, controller.signal)
      .then((doc) => {
        pageCache().set(key, doc);
        // Indexes built in the background grow the Document: the cache counts them once adopted.
        // (Adopting them leaves little garbage: the worker built them. No collection is asked.)
        if (doc.building) doc.ready().then(() => recountKey(key, doc, false));
        // A conversion leaves its garbage (and evicted pages theirs): give it back.
        giveBack();
        return doc;
      })
      .finally(() => {
        if (flights.get(flightKey) === started) flights.delete(flightKey);
      });
    // When every waiter has gone, nobody awaits the load: its failure must not go unhandled.
    promise.catch(() => {});
    const started: Flight = { promise, controller, waiting: 0 };
    flight = started;
    flights.set(flightKey, flight);
  }
  const doc = await wait(flight, options.signal);
  // A view that reads the indexes waits for the worker's build (even on the load it started);
  // an outline or a section answers at once. Unset: the request that started the load answers
  // at once, those that joined it wait.
  if (options.needsIndex === true || (joined && options.needsIndex !== false)) {
    await doc.ready(options.signal);
  }
  return { doc, cached: false };
}

interface Flight {
  promise: Promise<Document>;
  controller: AbortController;
  waiting: number;
}

const flights = new Map<string, Flight>();

/** Waits for a shared load; the load is cancelled only when every waiter has gone. */
async function wait(flight: Flight, signal?: AbortSignal): Promise<Document> {
  flight.waiting++;
  try {
    return await abortable(flight.promise, signal);
  } finally {
    flight.waiting--;
    if (flight.waiting === 0 && signal?.aborted) flight.controller.abort(signal.reason);
  }
}

/**
 * The name of the source that serves `url` (`web` for the generic web
 * path), without loading anything: what REST answers put in `X-Source`.
 */
export function sourceName(url: string): string {
  return sourceOfUrl(url)?.name ?? "web";
}

/** Re-stores a document whose size grew (slices or index built), so the cache counts it. */
export function recount(url: string, doc: Document, fullPage = false): void {
  recountKey(cacheKey(url, fullPage), doc);
}

/** Asks for the collection a load leaves garbage for (judged once the call has answered). */
function giveBack(): void {
  reclaimMemory(() => pageCache().bytes, workersBusy);
}

function recountKey(key: PageKey, doc: Document, reclaim = true): void {
  // Only the Document stored under the key: a rendered one (cached apart) must not replace it.
  if (pageCache().has(key) && pageCache().get(key) === doc) {
    const before = pageCache().bytes;
    pageCache().set(key, doc);
    // Building an index leaves garbage too (a question on a built index does not).
    if (reclaim && pageCache().bytes !== before) giveBack();
  }
}
