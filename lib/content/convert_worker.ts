/**
 * The worker side of {@link ./worker_pool.ts}: converts one HTML page per
 * message off the main thread and posts back the fields of its Document
 * (plain data: strings, numbers and the anchor Map, all structured-clonable).
 * The main thread builds the Document from them. Nothing here touches the
 * network or the page cache.
 *
 * @module
 */
import { unwatchCancel, watchCancel } from "./cancel.ts";
import { convertHtml, type HtmlOptions } from "./pipeline.ts";

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

/** The reply: the Document's fields, or the error's name and message. */
export type ConvertReply =
  | { id: number; ok: true; init: ReturnType<typeof convertHtml> }
  | { id: number; ok: false; name: string; message: string };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<ConvertJob>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (event) => {
  const job = event.data;
  let reply: ConvertReply;
  watchCancel(job.cancel);
  try {
    const html = job.html ??
      new TextDecoder(job.encoding ?? "utf-8", { ignoreBOM: false }).decode(job.bytes);
    reply = { id: job.id, ok: true, init: convertHtml(html, job.url, job.options) };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    reply = { id: job.id, ok: false, name: e.name, message: e.message };
  } finally {
    unwatchCancel();
  }
  scope.postMessage(reply);
};

// Loaded: the pool may send jobs.
scope.postMessage({ ready: true });
