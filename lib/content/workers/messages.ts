/**
 * The messages between the conversion pool (`pool.ts`, main thread) and a
 * conversion worker (`convert_worker.ts`): a job, the converted page and its
 * large parts, the indexes built after it, and what the worker's heap still
 * holds. Types only, so neither side imports the other.
 *
 * @module
 */
import type { ContentErrorKind } from "../../errors.ts";
import type { HtmlOptions } from "../convert/html.ts";
import type { AnchorParts } from "../document/anchors.ts";
import type { DocumentInit } from "../document/document.ts";
import type { Section } from "../document/sections.ts";
import type { Slice } from "../document/slices.ts";
import type { QueryIndexParts } from "../question/extract.ts";
import type { SearchIndexParts } from "../search/bm25.ts";

/** A job: one page. */
export interface ConvertJob {
  /** Job number, echoed in the reply. */
  id: number;
  /** The page's HTML, or: */
  html?: string;
  /** its bytes, */
  bytes?: Uint8Array;
  /** in this charset. */
  encoding?: string;
  /** Its URL (base for links). */
  url: string;
  /** Conversion options. */
  options: HtmlOptions;
  /** Raised (to 1) by the pool when the caller cancels: the conversion then stops. */
  cancel?: SharedArrayBuffer;
}

/** A converted page, as the worker sends it. */
export interface Converted {
  /** The Document's fields, without its anchors. */
  init: Omit<DocumentInit, "anchors">;
  /** The anchors, as {@link AnchorTable.toParts} gives them. */
  anchors: AnchorParts;
  /** The section tree. */
  sections: Section[];
  /** Estimated tokens of the Markdown. */
  tokens: number;
  /** Token features of each section's own text (see document.ts). */
  sectionFeatures: Float64Array<ArrayBuffer>;
}

/**
 * The reply: the converted page, or the error's name and message. The
 * largest part of a page (its Markdown) comes first, in a message of its
 * own ({@link ConvertPart}), so that reading it is a short task of its own on
 * the receiving thread; the final message holds the rest.
 */
export type ConvertReply =
  | { id: number; ok: true; converted: Converted & { init: { markdown: "" } } }
  | { id: number; ok: false; name: string; message: string; kind?: ContentErrorKind };

/** A large part of a reply, sent before it. */
export type ConvertPart =
  | { id: number; part: "markdown"; markdown: string }
  | { id: number; part: "slices"; slices: Slice[] }
  | { id: number; part: "search"; search: SearchIndexParts }
  | { id: number; part: "indexes"; query?: QueryIndexParts };

/** After a page's collection, what the worker's heap still holds (bytes, typed arrays included). */
export interface WorkerHeap {
  heldBytes: number;
}

/**
 * The indexes of a converted page (its slices, its search index, its
 * question index), built after the reply, while the page's first answer is
 * being made on the main thread: posted last, as typed arrays moved rather
 * than copied, in three messages (the slices, the search index, then the
 * question index, or an `indexes` part without it when building them
 * failed).
 */
export interface IndexParts {
  slices: Slice[];
  search: SearchIndexParts;
  query: QueryIndexParts;
}
