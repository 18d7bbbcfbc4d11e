/**
 * The worker side of `pool.ts`: converts one HTML page per
 * message off the main thread and posts back its Document in a form that is
 * cheap to adopt on the main thread (see {@link Converted}): the section
 * tree and the token count are computed here, and the anchors travel as an
 * {@link AnchorTable}'s parts (one string and transferred arrays: a Map of
 * 70,000 entries would cost the receiving thread tens of milliseconds to
 * rebuild). Nothing here touches the network or the page cache.
 *
 * @module
 */
import { checkCancelled, unwatchCancel, watchCancel } from "../../runtime/cancel.ts";
import { collectNow, freeArrays, prepareCollector } from "../../runtime/memory.ts";
import { ContentError } from "../../errors.ts";
import { AnchorTable } from "../document/anchors.ts";
import {
  Document,
  type DocumentInit,
  sectionFeatures,
  tokensFromFeatures,
} from "../document/document.ts";
import { convertHtml } from "../convert/html.ts";
import { PageHtml } from "../html/page_html.ts";
import type {
  Converted,
  ConvertJob,
  ConvertPart,
  ConvertReply,
  IndexParts,
  WorkerHeap,
} from "./messages.ts";
import { queryIndex } from "../question/extract.ts";
import { buildSections, type Section } from "../document/sections.ts";

/** Collects the last page's garbage, then says what the heap still holds. */
function collectAndReport(): void {
  collectNow().then(() => {
    const usage = Deno.memoryUsage();
    scope.postMessage({ heldBytes: usage.heapTotal + usage.external } satisfies WorkerHeap);
  }).catch(() => {});
}

/** The indexes of the page `converted` holds, and the buffers to transfer with them. */
function buildIndexes(
  init: Omit<DocumentInit, "anchors">,
  sections: Section[],
  tokens: number,
): { indexes: IndexParts; searchTransfer: ArrayBuffer[]; queryTransfer: ArrayBuffer[] } {
  const doc = new Document({ ...init, anchors: new Map() }, { sections, tokens });
  const search = doc.index.toParts();
  const query = queryIndex(doc).toParts();
  return {
    indexes: { slices: doc.slices, search: search.parts, query: query.parts },
    searchTransfer: search.transfer,
    queryTransfer: query.transfer,
  };
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<ConvertJob>) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
};

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Waits a little between two parts of a reply: messages that arrive
 * together are read by the main thread in one task (in Deno 2.9.6), which
 * is what sending them apart avoids.
 */
function pause(ms = PART_GAP_MS): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** The wait between two parts of a reply. */
const PART_GAP_MS = 15;

/** The page of `job`, converted. */
function convert(job: ConvertJob): Converted {
  const page = job.html !== undefined
    ? PageHtml.of(job.html)
    : PageHtml.decode(job.bytes ?? new Uint8Array(), job.encoding ?? "utf-8");
  // The page is this thread's now: its bytes (moved here) go back at once, and the job lets
  // go of its text, so the conversion holds one copy of the page, which it lets go of in turn
  // once its walk has read it (see PageHtml).
  if (job.bytes) freeArrays([job.bytes]);
  job.html = undefined;
  const { anchors, ...init } = convertHtml(page, job.url, job.options);
  checkCancelled();
  const sections = buildSections(init.markdown, anchors);
  checkCancelled();
  const features = sectionFeatures(init.markdown, sections);
  const tokens = tokensFromFeatures(init.markdown, sections, features);
  return {
    init,
    anchors: AnchorTable.from(anchors).toParts(),
    sections,
    tokens,
    sectionFeatures: features,
  };
}

scope.onmessage = (event) => {
  const job = event.data;
  let converted: Converted | undefined;
  let failure: Error | undefined;
  watchCancel(job.cancel);
  try {
    converted = convert(job);
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
  } finally {
    unwatchCancel();
  }
  if (!converted) {
    const e = failure!;
    const kind = e instanceof ContentError ? e.kind : undefined;
    scope.postMessage(
      { id: job.id, ok: false, name: e.name, message: e.message, kind } as ConvertReply,
    );
    collectAndReport();
    return;
  }
  const { init, ...rest } = converted;
  scope.postMessage({ id: job.id, part: "markdown", markdown: init.markdown } as ConvertPart);
  pause();
  const reply: ConvertReply = {
    id: job.id,
    ok: true,
    converted: { ...rest, init: { ...init, markdown: "" } },
  };
  scope.postMessage(reply, [...AnchorTable.buffersOf(rest.anchors), rest.sectionFeatures.buffer]);
  let built: ReturnType<typeof buildIndexes> | undefined;
  // The pool raises the job's flag when the build runs past its deadline (pool.ts).
  watchCancel(job.cancel);
  try {
    built = buildIndexes(init, rest.sections, rest.tokens);
  } catch {
    // The main thread builds them itself, on first use.
  } finally {
    unwatchCancel();
  }
  if (built) {
    const { slices, search, query } = built.indexes;
    scope.postMessage({ id: job.id, part: "slices", slices } as ConvertPart);
    pause();
    scope.postMessage({ id: job.id, part: "search", search } as ConvertPart, built.searchTransfer);
    pause();
    scope.postMessage({ id: job.id, part: "indexes", query } as ConvertPart, built.queryTransfer);
  } else scope.postMessage({ id: job.id, part: "indexes" } as ConvertPart);
  // The page's DOM and strings are garbage now, and V8 would keep the heap they grew (hundreds
  // of MB for a 15 MB page) while the worker waits for the next page: give it back. The pause
  // is this thread's own; a page sent meanwhile waits for it.
  collectAndReport();
};

// Loaded, with the collector a large page's conversion runs between its stages: the pool may
// send jobs.
await prepareCollector();
scope.postMessage({ ready: true });
