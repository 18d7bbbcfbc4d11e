/**
 * Reading a response body under a byte cap. Content-Encoding is undone here
 * (gzip, deflate in either framing, brotli), and the cap counts the decoded
 * bytes. The decoder is node:zlib's streaming one with a small output chunk:
 * it stops producing while its output is not read, so a compression bomb
 * costs at most one chunk beyond the cap, whatever its ratio (Deno's
 * DecompressionStream turns one input chunk into one output chunk of any
 * size: 400 bytes of brotli into 256 MiB). More than one coding (`gzip,
 * gzip`) is refused: no real server stacks them, and each layer multiplies
 * the ratio. A body then costs at most twice the cap in memory (the chunks,
 * then the joined bytes).
 *
 * @module
 */
import type { Transform } from "node:stream";
import { NetError } from "./errors.ts";
import { freeArrays } from "../runtime/memory.ts";

/** Human form of a byte count (5 MiB, 512 KiB, 900 bytes). */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}

/** Size of one decoded chunk: the most a decoder holds beyond what was counted. */
const DECODED_CHUNK = 64 * 1024;

// node:zlib loads on the first encoded body, not at start-up.
let nodeZlib: Promise<typeof import("node:zlib")> | undefined;

async function decoderFor(
  coding: string,
  first: number | undefined,
  url: string,
): Promise<Transform> {
  const zlib = await (nodeZlib ??= import("node:zlib"));
  const options = { chunkSize: DECODED_CHUNK };
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(options);
    case "deflate":
      // Servers send zlib-wrapped or raw deflate under this name; a zlib header starts with 0x?8.
      return first !== undefined && (first & 0x0f) === 8
        ? zlib.createInflate(options)
        : zlib.createInflateRaw(options);
    case "br":
      return zlib.createBrotliDecompress(options);
    default:
      throw new NetError(
        "transport",
        `the server of ${url} used an unsupported content encoding '${coding.slice(0, 40)}'`,
        url,
      );
  }
}

/** The codings of a Content-Encoding header, identity left out. */
function codingsOf(header: string | null): string[] {
  return (header ?? "").toLowerCase().split(",").map((c) => c.trim())
    .filter((c) => c && c !== "identity");
}

/** Decoded chunks of `reader`'s body through `decoder`, honouring backpressure both ways. */
async function* decodedChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  coding: string,
  url: string,
): AsyncGenerator<Uint8Array> {
  const head = await reader.read();
  if (head.done) return;
  const decoder = await decoderFor(coding, head.value[0], url);
  let failed: unknown;
  const feed = (async () => {
    try {
      let chunk: Uint8Array | undefined = head.value;
      while (chunk) {
        if (!decoder.write(chunk)) {
          await new Promise<void>((resolve) => {
            const done = () => {
              decoder.off("drain", done).off("close", done);
              resolve();
            };
            decoder.on("drain", done).on("close", done);
          });
        }
        if (decoder.destroyed) return;
        const next = await reader.read();
        chunk = next.done ? undefined : next.value;
      }
      decoder.end();
    } catch (error) {
      failed = error;
      decoder.destroy(error as Error);
    }
  })();
  try {
    for await (const chunk of decoder) yield chunk as Uint8Array;
    await feed;
    if (failed) throw failed;
  } catch (error) {
    throw failed ?? error;
  } finally {
    decoder.destroy();
    await reader.cancel().catch(() => {});
    await feed;
  }
}

async function* rawChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  try {
    while (true) {
      const next = await reader.read();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** Content-Encoding of the stream (null or "identity" for none). */
  contentEncoding: string | null;
  /** Cap on decoded bytes. */
  maxBytes: number;
  /** The URL, for messages. */
  url: string;
  /** Aborts the read. */
  signal?: AbortSignal;
  /** Called with the decoded bytes read so far, after each chunk. */
  onBytes?: (bytes: number) => void;
  /**
   * The body's length when the server said it (Content-Length without a
   * content coding): the bytes are then copied into one array of that size
   * as they come, so the end of a large body costs no copy of the whole.
   */
  expectedBytes?: number;
}

/** Reads a body to the end, decoding its content encoding, within `maxBytes`. */
export async function readBody(
  stream: ReadableStream<Uint8Array> | null,
  options: ReadBodyOptions,
): Promise<Uint8Array> {
  if (!stream) return new Uint8Array();
  const codings = codingsOf(options.contentEncoding);
  if (codings.length > 1) {
    await stream.cancel().catch(() => {});
    throw new NetError(
      "transport",
      `the response from ${options.url} stacks ${codings.length} content codings (${
        codings.join(", ").slice(0, 80)
      }); only one is decoded, so it was refused (a server that means it is misconfigured)`,
      options.url,
    );
  }
  const reader = stream.getReader();
  const onAbort = () => reader.cancel(options.signal?.reason).catch(() => {});
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  const source = codings.length
    ? decodedChunks(reader, codings[0], options.url)
    : rawChunks(reader);
  // A raw body of a stated length goes straight into one array (a server that sends more than
  // it said falls back to the list of chunks).
  const expected = options.expectedBytes;
  let whole = !codings.length && expected !== undefined && Number.isSafeInteger(expected) &&
      expected > 0 && expected <= options.maxBytes
    ? new Uint8Array(expected)
    : undefined;
  try {
    for await (const chunk of source) {
      if (options.signal?.aborted) throw options.signal.reason;
      const at = total;
      total += chunk.length;
      if (total > options.maxBytes) {
        throw new NetError(
          "too_large",
          `the response from ${options.url} exceeded the ${formatBytes(options.maxBytes)} limit ` +
            `(counted after decompression)`,
          options.url,
          { limit: options.maxBytes },
        );
      }
      if (whole && total <= whole.length) {
        whole.set(chunk, at);
        // The reader's chunk is copied: its memory goes back now.
        freeArrays([chunk]);
      } else {
        if (whole) {
          chunks.push(whole.subarray(0, at));
          whole = undefined;
        }
        chunks.push(chunk);
      }
      options.onBytes?.(total);
    }
    // A cancelled read also ends the stream: an abort is not a complete body.
    if (options.signal?.aborted) throw options.signal.reason;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof NetError) throw error;
    throw new NetError(
      "transport",
      `the response body from ${options.url} could not be read (${
        (error as Error).message ?? error
      }); the connection broke or the content encoding is corrupt`,
      options.url,
      { cause: error },
    );
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await source.return(undefined).catch(() => {});
  }
  if (whole) return total === whole.length ? whole : whole.subarray(0, total);
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  // The chunks of a raw body are the reader's alone: their memory goes back now (a page of
  // 15 MB would otherwise hold twice its size until V8's next full collection). The decoder's
  // chunks may be views of a buffer it still writes to, so they are left to the collector.
  if (!codings.length) freeArrays(chunks);
  return out;
}
