/**
 * Hugging Face checkpoints: which weight files form the canonical set, what
 * the Hub's parameter counts say about their storage, and whether an
 * effective bits-per-weight figure can honestly be given.
 *
 * Everything here is a pure function of the Hub's model info (no requests):
 *
 * - {@link partitionCheckpoints}: `.safetensors` files grouped into sets by
 *   directory and shard series (`<stem>-00001-of-00004.safetensors`, a set
 *   only when all N parts of one stem are there; stray parts count as
 *   singles), with precision variants (`model.fp16.safetensors` beside
 *   `model.safetensors`) dropped; the canonical set is the top-level one, sharded before singles,
 *   then the one with most files.
 * - {@link analyzeQuant}: bits per weight = canonical bytes × 8 / the Hub's
 *   parameter total, given only when every gate passes; otherwise the reason
 *   it is withheld (no parameter count, no safetensors bytes, a diffusers
 *   pipeline, packed storage the count does not see through, or a figure
 *   more than twice the declared bits).
 * - {@link auditAgainstBase}: the quant audit's verdict from the base
 *   model's own numbers.
 *
 * @module
 */

/** One repository file as the Hub lists it (`siblings` with `blobs=true`). */
export interface HfSibling {
  /** Path in the repository. */
  rfilename: string;
  /** Size in bytes (with `blobs=true`). */
  size?: number;
  /** Git blob id. */
  blobId?: string;
  /** LFS pointer details. */
  lfs?: { sha256?: string; size?: number; pointerSize?: number };
}

/** The Hub's safetensors summary: parameter count per dtype and in all. */
export interface SafetensorsSummary {
  /** Count per dtype (`BF16`, `U32`, ...). */
  parameters: Record<string, number>;
  /** Total count. */
  total: number;
}

/** What the analysis reads from the model info. */
export interface QuantInput {
  /** Files with sizes. */
  siblings: HfSibling[];
  /** Safetensors summary, when the Hub has one. */
  safetensors?: SafetensorsSummary;
  /** `config` (the Hub's copy of config.json, possibly partial). */
  config?: Record<string, unknown>;
  /** Tags. */
  tags?: string[];
  /** Lineage relation to the base model (`quantized`, `finetune`, ...). */
  relation?: string;
}

/** A set of checkpoint files. */
export interface CheckpointSet {
  /** Directory ("" at the top). */
  dir: string;
  /** `of-N` for a shard series, `singles` otherwise. */
  group: string;
  /** Files of the set. */
  files: HfSibling[];
  /** Sum of known sizes. */
  bytes: number;
  /** Whether every file's size is known. */
  sized: boolean;
}

/** The analysis result: trusted-shaped strings and numbers only. */
export interface QuantAnalysis {
  /** Canonical checkpoint set, if any safetensors are present. */
  canonical?: CheckpointSet;
  /** Other sets. */
  others: CheckpointSet[];
  /** Whether the model looks quantised, and why. */
  isQuant: boolean;
  /** Declared bits from the config's quantization block. */
  declaredBits?: number;
  /** Quantisation method name from the config. */
  method?: string;
  /** Effective bits per weight, when every gate passed. */
  bpw?: number;
  /** Why bpw is withheld. */
  withheld?: string;
  /** Storage format read from the dtypes. */
  nativeFormat?: string;
  /** Dtype histogram, largest first (share ≥ 0.5 %, at most 4). */
  fingerprint: { dtype: string; count: number }[];
  /** Warnings (config problems). */
  warnings: string[];
  /** Notes. */
  notes: string[];
}

/** Extensions of weight payloads, which are never downloaded. */
export const WEIGHT_EXTENSIONS = [
  ".safetensors",
  ".bin",
  ".pt",
  ".pth",
  ".ckpt",
  ".gguf",
  ".onnx",
  ".h5",
  ".msgpack",
  ".tflite",
  ".ot",
  ".npz",
  ".mlmodel",
] as const;

/** Whether `path` names a weight payload. */
export function isWeightFile(path: string): boolean {
  const p = path.toLowerCase();
  return WEIGHT_EXTENSIONS.some((e) => p.endsWith(e)) || /\.onnx_data$/.test(p);
}

/** The size of a sibling: its LFS size, else its blob size. */
export function sizeOf(s: HfSibling): number | undefined {
  return s.lfs?.size ?? s.size;
}

/** A count as `110.1M`, `7.2B`, `980K`. */
export function humanCount(n: number): string {
  if (n >= 1e12) return `${(n / 1e12).toFixed(2)}T`;
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

/** Bytes as GiB (or MiB / KiB / bytes for small sizes). */
export function humanBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} bytes`;
}

const SHARD = /^(.*)-(\d{5})-of-(\d{5})\.safetensors$/;
const VARIANT = /^(.*)\.(fp16|fp32|bf16)\.safetensors$/;

/** Groups `.safetensors` files into checkpoint sets; the canonical one first. */
export function partitionCheckpoints(siblings: HfSibling[]): CheckpointSet[] {
  const names = new Set(siblings.map((s) => s.rfilename));
  const groups = new Map<string, { dir: string; group: string; files: HfSibling[] }>();
  const series = new Map<string, { dir: string; group: string; of: number; files: HfSibling[] }>();
  const add = (dir: string, group: string, file: HfSibling) => {
    const key = `${dir}\u0000${group}`;
    if (!groups.has(key)) groups.set(key, { dir, group, files: [] });
    groups.get(key)!.files.push(file);
  };
  for (const s of siblings) {
    if (!s.rfilename.endsWith(".safetensors")) continue;
    const slash = s.rfilename.lastIndexOf("/");
    const dir = slash < 0 ? "" : s.rfilename.slice(0, slash);
    const base = s.rfilename.slice(slash + 1);
    const variant = VARIANT.exec(base);
    if (variant && names.has(`${dir ? dir + "/" : ""}${variant[1]}.safetensors`)) continue;
    const shard = SHARD.exec(base);
    if (!shard) {
      add(dir, "singles", s);
      continue;
    }
    const of = Number(shard[3]);
    const key = `${dir}\u0000${shard[1]}\u0000${of}`;
    if (!series.has(key)) series.set(key, { dir, group: `of-${of}`, of, files: [] });
    series.get(key)!.files.push(s);
  }
  // A shard series is one checkpoint only when one stem has all N parts; strays count as singles.
  for (const sr of series.values()) {
    if (sr.files.length === sr.of) {
      const key = `${sr.dir}\u0000${sr.group}`;
      if (groups.has(key)) { for (const f of sr.files) add(sr.dir, "singles", f); }
      else groups.set(key, { dir: sr.dir, group: sr.group, files: sr.files });
    } else for (const f of sr.files) add(sr.dir, "singles", f);
  }
  const sets = [...groups.values()].map((g) => ({
    ...g,
    bytes: g.files.reduce((a, f) => a + (sizeOf(f) ?? 0), 0),
    sized: g.files.every((f) => sizeOf(f) !== undefined),
  }));
  sets.sort((a, b) =>
    Number(a.dir !== "") - Number(b.dir !== "") ||
    Number(a.group === "singles") - Number(b.group === "singles") ||
    b.files.length - a.files.length
  );
  return sets;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}

/** The config's quantization block (`quantization_config`, else MLX's `quantization`). */
export function quantBlock(config?: Record<string, unknown>): Record<string, unknown> | undefined {
  return record(config?.quantization_config) ?? record(config?.quantization);
}

/** Declared bits: `bits`, else the smallest `config_groups[*].weights.num_bits`. */
export function declaredBits(block?: Record<string, unknown>): number | undefined {
  if (!block) return undefined;
  if (typeof block.bits === "number" && block.bits > 0) return block.bits;
  let min: number | undefined;
  for (const g of Object.values(record(block.config_groups) ?? {})) {
    const bits = record(record(g)?.weights)?.num_bits;
    if (typeof bits === "number" && bits > 0) min = min === undefined ? bits : Math.min(min, bits);
  }
  return min;
}

const QUANT_TAG = /^(?:quantized|gguf|awq|gptq|mlx)|^\d+-?bit$/i;

/** The storage format the dtypes show. */
export function nativeFormat(dtypes: Record<string, number>): string | undefined {
  const has = (d: string) => (dtypes[d] ?? 0) > 0;
  const total = Object.values(dtypes).reduce((a, b) => a + b, 0);
  if (has("F8_E8M0") && has("I8")) {
    return has("F8_E4M3") ? "FP4-packed (E8M0 scales) + FP8 (E4M3)" : "FP4-packed (E8M0 scales)";
  }
  if (has("F8_E4M3") && dtypes.F8_E4M3 > total / 2) return "FP8-native (E4M3)";
  if (has("U32") && has("U8")) {
    return "packed payload + E8M0 scales (per-module mode in config.json)";
  }
  if (has("U32")) return "affine (U32-packed integers)";
  if (has("U8")) return "byte-packed (mxfp-style)";
  return undefined;
}

const WIDTH: Record<string, number> = {
  F64: 8,
  I64: 8,
  U64: 8,
  F32: 4,
  I32: 4,
  U32: 4,
  F16: 2,
  BF16: 2,
  I16: 2,
  U16: 2,
  F8_E4M3: 1,
  F8_E5M2: 1,
  F8_E8M0: 1,
  I8: 1,
  U8: 1,
  BOOL: 1,
};

/** Bytes per element of a safetensors dtype (undefined for unknown ones). */
export function dtypeWidth(dtype: string): number | undefined {
  return WIDTH[dtype];
}

/** Analyses a model's checkpoint from the Hub's numbers alone. */
export function analyzeQuant(input: QuantInput): QuantAnalysis {
  const sets = partitionCheckpoints(input.siblings);
  const canonical = sets[0];
  const others = sets.slice(1);
  const dtypes = input.safetensors?.parameters ?? {};
  const total = input.safetensors?.total ?? 0;
  const sum = Object.values(dtypes).reduce((a, b) => a + b, 0);
  const block = quantBlock(input.config);
  const bits = declaredBits(block);
  const method = typeof block?.quant_method === "string" ? block.quant_method : undefined;
  const warnings: string[] = [];
  const notes: string[] = [];
  const has = (d: string) => (dtypes[d] ?? 0) > 0;
  const isQuant = input.relation === "quantized" || has("U32") || has("U8") || has("I8") ||
    (input.tags ?? []).some((t) => QUANT_TAG.test(t)) ||
    (block !== undefined && Object.keys(block).length > 0);
  if (block && Object.keys(block).length === 0) {
    warnings.push(
      "quantization_config declares a quantization block with no bits — stock loaders cannot construct quantized layers from this config",
    );
  }
  const autoMap = record(input.config?.auto_map);
  if (autoMap?.AutoConfig !== undefined) {
    warnings.push("config declares auto_map — loading requires trust_remote_code=True");
  }
  const fingerprint = Object.entries(dtypes)
    .filter(([, n]) => total > 0 && n / total >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([dtype, count]) => ({ dtype, count }));
  if (others.length > 0) {
    const naive = sets.reduce((a, s) => a + s.bytes, 0);
    notes.push(
      `${sets.length} safetensors checkpoint sets are present; sizes count only the canonical one (${
        describeSet(canonical)
      }); all sets together come to ${humanBytes(naive)}`,
    );
  }
  let bpw: number | undefined;
  let withheld: string | undefined;
  const names = new Set(input.siblings.map((s) => s.rfilename));
  if (!input.safetensors || !(total > 0)) {
    withheld = "the Hub reports no safetensors parameter count, so there is no count to divide by";
  } else if (!canonical) {
    withheld = "no .safetensors weights are present to measure";
  } else if (!canonical.sized || canonical.bytes === 0) {
    withheld = "the Hub gave no sizes for the .safetensors files, so there are no bytes to measure";
  } else if (names.has("model_index.json") && !names.has("model.safetensors.index.json")) {
    withheld =
      "this is a diffusers pipeline (model_index.json): the parameter count spans components stored in separate checkpoints";
  } else if (has("U32") && total === sum) {
    withheld =
      "packed storage: the Hub counts each U32 word holding several packed weights as one parameter, so bytes per counted parameter are not bits per weight";
  } else if (
    total === sum && has("F8_E8M0") && (has("I8") || has("U8")) &&
    (dtypes.F8_E8M0 * 32) / ((dtypes.I8 ?? 0) + (dtypes.U8 ?? 0)) >= 1.5
  ) {
    withheld =
      "packed storage: the E8M0 scale count implies several weights per stored byte, which the parameter count does not see";
  } else {
    const raw = canonical.bytes * 8 / total;
    if (bits !== undefined && raw > 2 * bits) {
      withheld = `the measured ${
        raw.toFixed(2)
      } bits per counted parameter is more than twice the declared ${bits}-bit, so the count and the bytes disagree (packed or unlisted tensors)`;
    } else bpw = Math.round(raw * 100) / 100;
  }
  if (bpw !== undefined && isQuant && bpw >= 8.4 && (bits === undefined || bits < 8)) {
    notes.push(
      `effective ${
        bpw.toFixed(2)
      } bpw on a quantised model: most weights are stored at 8 bits or more (upcast or left unquantised); compare with the base model (action=quant_audit)`,
    );
  }
  return {
    canonical,
    others,
    isQuant,
    declaredBits: bits,
    method,
    bpw,
    withheld,
    nativeFormat: nativeFormat(dtypes),
    fingerprint,
    warnings,
    notes,
  };
}

/** One line about a checkpoint set: `sharded — 4 shards in dir/` or `1 unsharded file`. */
export function describeSet(set: CheckpointSet): string {
  const where = set.dir ? ` in ${set.dir}/` : "";
  if (set.group !== "singles") return `sharded — ${set.files.length} shards${where}`;
  return `${set.files.length} unsharded file${set.files.length === 1 ? "" : "s"}${where}`;
}

/** The `quant` summary line, or undefined for a model that is not quantised. */
export function quantSummary(a: QuantAnalysis): string | undefined {
  if (!a.isQuant) return undefined;
  const parts: string[] = [a.method ?? "quantized"];
  parts.push(
    a.declaredBits !== undefined
      ? `declared ${a.declaredBits}-bit`
      : "undeclared — quantization block declares no bits",
  );
  if (a.bpw !== undefined) {
    parts.push(`effective ${a.bpw.toFixed(2)} bpw`);
    if (a.declaredBits !== undefined && a.bpw < a.declaredBits - 0.5) parts.push("mixed precision");
  }
  return parts.join(" · ");
}

/** What the quant audit compares: one model's numbers. */
export interface AuditSide {
  /** Parameter total from the Hub (may count packed words). */
  params?: number;
  /** Canonical safetensors bytes. */
  bytes?: number;
  /** Dtype histogram. */
  dtypes: Record<string, number>;
  /** Declared bits. */
  bits?: number;
}

/** The quant audit's conclusion and the figures behind it. */
export interface AuditResult {
  /** One-line verdict. */
  verdict: string;
  /** Figures and reasons. */
  notes: string[];
}

/**
 * Judges a quantised checkpoint against its base: the quant's canonical
 * bytes spread over the base's parameter count give its real bits per
 * weight, whatever packing the quant's own count hides.
 */
export function auditAgainstBase(quant: AuditSide, base: AuditSide): AuditResult {
  const notes: string[] = [];
  if (!base.params || !(base.params > 0)) {
    return {
      verdict: "verdict unavailable: the base model has no safetensors parameter count on the Hub",
      notes,
    };
  }
  notes.push(`base parameters: ${humanCount(base.params)}`);
  if (quant.params) {
    const ratio = quant.params / base.params;
    notes.push(
      `this repo's counted parameters: ${humanCount(quant.params)} (${
        (ratio * 100).toFixed(1)
      }% of the base)`,
    );
    if (ratio < 0.9 && (quant.dtypes.U32 || quant.dtypes.U8 || quant.dtypes.I8)) {
      notes.push(
        "the lower count reflects packed storage (several weights per stored integer), not missing weights",
      );
    }
  }
  if (base.bytes) {
    notes.push(
      `base checkpoint: ${humanBytes(base.bytes)}, ${
        (base.bytes * 8 / base.params).toFixed(2)
      } bits per parameter`,
    );
  }
  if (!quant.bytes) {
    return {
      verdict: "verdict unavailable: this repo has no measurable .safetensors bytes",
      notes,
    };
  }
  const bits = quant.bytes * 8 / base.params;
  notes.push(
    `this checkpoint: ${humanBytes(quant.bytes)} = ${bits.toFixed(2)} bits per base parameter${
      base.bytes ? ` (${(quant.bytes / base.bytes * 100).toFixed(1)}% of the base's size)` : ""
    }`,
  );
  const baseBits = base.bytes ? base.bytes * 8 / base.params : undefined;
  let verdict: string;
  if (baseBits !== undefined && bits >= baseBits * 0.95) {
    verdict = `not smaller than the base (${bits.toFixed(2)} vs ${
      baseBits.toFixed(2)
    } bits per parameter): no effective quantisation — weights are stored at the base's precision or upcast`;
  } else if (quant.bits === undefined) {
    verdict = `effective ${
      bits.toFixed(2)
    } bits per base parameter; no declared bit width to check it against`;
  } else if (bits < quant.bits - 0.5) {
    verdict = `effective ${
      bits.toFixed(2)
    } bits per base parameter is below the declared ${quant.bits}-bit: parts of the base model may be missing from this checkpoint (a stripped component) — check the shard map`;
  } else if (bits <= quant.bits + 1.5) {
    verdict = `consistent with the declared ${quant.bits}-bit: effective ${
      bits.toFixed(2)
    } bits per base parameter (the excess is scales and layers kept at higher precision)`;
  } else {
    verdict = `effective ${
      bits.toFixed(2)
    } bits per base parameter is well above the declared ${quant.bits}-bit: many layers are unquantised or stored wider than declared`;
  }
  return { verdict, notes };
}
