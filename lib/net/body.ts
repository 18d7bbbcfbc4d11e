/**
 * Reading a response body under a byte cap. Content-Encoding is undone here
 * (gzip, deflate in either framing, brotli, stacked encodings in order), and
 * the cap counts the decoded bytes, so a compression bomb stops at the cap
 * after a few kilobytes of input instead of filling memory.
 *
 * @module
 */
import { NetError } from "./errors.ts";

/** Human form of a byte count (5 MiB, 512 KiB, 900 bytes). */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}

type Decoder = TransformStream<Uint8Array, Uint8Array>;
const decompress = (format: string): Decoder =>
  new DecompressionStream(format as CompressionFormat) as unknown as Decoder;

function decoderFor(coding: string, first: number | undefined): Decoder | null {
  switch (coding) {
    case "identity":
    case "":
      return null;
    case "gzip":
    case "x-gzip":
      return decompress("gzip");
    case "deflate":
      // Servers send zlib-wrapped or raw deflate under this name; a zlib header starts with 0x?8.
      return decompress(first !== undefined && (first & 0x0f) === 8 ? "deflate" : "deflate-raw");
    case "br":
      return decompress("brotli");
    default:
      throw new NetError(
        "transport",
        `the server used an unsupported content encoding '${coding}'`,
      );
  }
}

async function peekFirstByte(
  stream: ReadableStream<Uint8Array>,
): Promise<[number | undefined, ReadableStream<Uint8Array>]> {
  const reader = stream.getReader();
  const { value, done } = await reader.read();
  const first = done ? undefined : value?.[0];
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!done && value) controller.enqueue(value);
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return [first, rest];
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
}

/** Reads a body to the end, decoding content encodings, within `maxBytes`. */
export async function readBody(
  stream: ReadableStream<Uint8Array> | null,
  options: ReadBodyOptions,
): Promise<Uint8Array> {
  if (!stream) return new Uint8Array();
  let decoded = stream;
  const codings = (options.contentEncoding ?? "").toLowerCase().split(",").map((c) => c.trim())
    .filter((c) => c && c !== "identity");
  // Codings are listed in the order applied; undo them last to first.
  for (const coding of codings.reverse()) {
    const [first, rest] = await peekFirstByte(decoded);
    const decoder = decoderFor(coding, first);
    decoded = decoder ? rest.pipeThrough(decoder) : rest;
  }
  const reader = decoded.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const onAbort = () => reader.cancel(options.signal?.reason).catch(() => {});
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      if (options.signal?.aborted) throw options.signal.reason;
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
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
      }
      if (next.done) {
        // A cancelled read also ends the stream: an abort is not a complete body.
        if (options.signal?.aborted) throw options.signal.reason;
        break;
      }
      total += next.value.length;
      if (total > options.maxBytes) {
        await reader.cancel("size cap").catch(() => {});
        throw new NetError(
          "too_large",
          `the response from ${options.url} exceeded the ${formatBytes(options.maxBytes)} limit ` +
            `(counted after decompression); ask for a narrower view or a page that is smaller`,
          options.url,
        );
      }
      chunks.push(next.value);
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}
