/**
 * The generic web path: any URL no first-party source claims is fetched
 * through the guarded network layer and converted by content type.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import { defaultNet } from "../net/default.ts";
import { expectOk } from "../net/fetch.ts";
import { freeArrays } from "../runtime/memory.ts";
import { detectCharset } from "../net/charset.ts";
import { discourseTopicOf, loadTopic } from "./discourse.ts";
import type { LoadOptions } from "./source.ts";

/** What the web path asks servers for, in order of preference. */
export const ACCEPT =
  "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/json;q=0.8,application/xml;q=0.7,application/pdf;q=0.7,*/*;q=0.5";

/** Fetches `url` and converts it. */
export async function fetchWebDocument(url: string, options: LoadOptions): Promise<Document> {
  const result = expectOk(
    await defaultNet().fetch(url, {
      maxBytes: options.maxBytes,
      signal: options.signal,
      headers: { accept: ACCEPT },
    }),
  );
  // A Discourse topic page is re-read through the forum's JSON API (raw Markdown, every post).
  const topic = discourseTopicOf(result.url, result.headers);
  if (topic) return await loadTopic(topic, options);
  options.onStage?.("converting");
  // The converter loads with the first page, not at start-up.
  const { toDocument } = await import("../content/pipeline.ts");
  const doc = await toDocument({
    url: result.url,
    contentType: result.contentType,
    bytes: result.bytes,
    text: () => result.text(),
    encoding: () => detectCharset(result.headers.get("content-type"), result.bytes).encoding,
    degraded: result.degraded,
  }, { fullPage: options.fullPage, signal: options.signal });
  // An HTML Document keeps strings made from the body, never the body: its bytes (the whole
  // page, outside V8's heap) go back now rather than at the next full collection.
  if (doc.kind === "html") freeArrays([result.bytes]);
  return doc;
}
