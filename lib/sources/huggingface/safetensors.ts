/**
 * Safetensors headers read by HTTP byte range, never the weights: bytes
 * 0-7 hold the header length N (unsigned 64-bit, little-endian), bytes
 * 8..8+N-1 the JSON header naming every tensor's dtype, shape and offsets.
 * Two range requests, each with a byte cap just above what it asks for; a
 * server that ignores the range (answers 200 with the whole file) is
 * stopped by that cap.
 *
 * @module
 */
import { ContentError } from "../../errors.ts";
import { dtypeWidth, humanCount } from "./quant.ts";

/** Largest header read (real headers of sharded checkpoints stay well under this). */
export const MAX_HEADER_BYTES = 8 * 1024 * 1024;

/** One tensor of a header. */
export interface TensorInfo {
  /** Tensor name. */
  name: string;
  /** Dtype (`BF16`, `F32`, `U32`, ...). */
  dtype: string;
  /** Shape. */
  shape: number[];
  /** Element count. */
  elements: number;
}

/** A parsed header. */
export interface SafetensorsHeader {
  /** Header length in bytes (N). */
  headerBytes: number;
  /** Tensors in header order. */
  tensors: TensorInfo[];
  /** `__metadata__` string pairs. */
  metadata: Record<string, string>;
}

/** Reads the header length from the first 8 bytes. */
export function headerLength(bytes: Uint8Array): number {
  if (bytes.length < 8) {
    throw new ContentError(
      `the file's first bytes are too short for a safetensors header length (${bytes.length} of 8 bytes)`,
    );
  }
  const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  if (n < 2n) throw new ContentError("the safetensors header length is implausibly small");
  if (n > BigInt(MAX_HEADER_BYTES)) {
    throw new ContentError(
      `the safetensors header is ${n} bytes, over the ${MAX_HEADER_BYTES}-byte limit this tool reads (or the file is not safetensors)`,
    );
  }
  return Number(n);
}

/** Parses the JSON header. */
export function parseHeader(text: string, headerBytes: number): SafetensorsHeader {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ContentError(
      "the safetensors header is not valid JSON (or the file is not safetensors)",
    );
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ContentError("the safetensors header is not a JSON object");
  }
  const tensors: TensorInfo[] = [];
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (name === "__metadata__") {
      for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (typeof v === "string") metadata[k] = v;
      }
      continue;
    }
    const t = value as { dtype?: unknown; shape?: unknown };
    if (
      typeof t?.dtype !== "string" || !Array.isArray(t.shape) ||
      !t.shape.every((d) => Number.isInteger(d) && d >= 0)
    ) {
      throw new ContentError(`tensor entry ${JSON.stringify(name).slice(0, 80)} is malformed`);
    }
    const shape = t.shape as number[];
    tensors.push({ name, dtype: t.dtype, shape, elements: shape.reduce((a, b) => a * b, 1) });
  }
  return { headerBytes, tensors, metadata };
}

/** Element count and bytes per dtype, largest first. */
export function dtypeTotals(
  h: SafetensorsHeader,
): { dtype: string; elements: number; bytes?: number }[] {
  const by = new Map<string, number>();
  for (const t of h.tensors) by.set(t.dtype, (by.get(t.dtype) ?? 0) + t.elements);
  return [...by].sort((a, b) => b[1] - a[1]).map(([dtype, elements]) => {
    const w = dtypeWidth(dtype);
    return { dtype, elements, bytes: w === undefined ? undefined : w * elements };
  });
}

/** Most tensors listed one per line in a summary. */
export const MAX_LISTED_TENSORS = 200;

/** The header as Markdown (tensor names are file content: this goes in the fence). */
export function headerMarkdown(h: SafetensorsHeader): string {
  const lines = ["## Safetensors header", ""];
  lines.push(`- header: ${h.headerBytes} bytes, ${h.tensors.length} tensors`);
  for (const d of dtypeTotals(h)) {
    lines.push(
      `- ${d.dtype}: ${humanCount(d.elements)} elements in ${
        h.tensors.filter((t) => t.dtype === d.dtype).length
      } tensors`,
    );
  }
  const meta = Object.entries(h.metadata);
  if (meta.length) {
    lines.push("", "### Metadata", "");
    for (const [k, v] of meta.slice(0, 50)) lines.push(`- ${k}: ${v.slice(0, 200)}`);
  }
  lines.push("", "### Tensors", "");
  for (const t of h.tensors.slice(0, MAX_LISTED_TENSORS)) {
    lines.push(`- ${t.name} ${t.dtype} [${t.shape.join(", ")}]`);
  }
  if (h.tensors.length > MAX_LISTED_TENSORS) {
    lines.push(`- … ${h.tensors.length - MAX_LISTED_TENSORS} more (use search= to find one)`);
  }
  return lines.join("\n");
}
