/**
 * The shelf as JSON: the export, and the checked reading of an import.
 *
 * Export: `{"format": "parkour-shelf", "version": 1, "active": {doi:
 * record}, "retracted": {doi: record}}`, records in the shape of
 * {@link ShelfRecord}. Import accepts that, parkour-mcp's export (the same
 * buckets without `format`; extra record fields such as `bibtex` are
 * dropped) and the legacy flat `{doi: record}` map. The whole input is
 * checked before anything is written; the first problems are named with
 * their place (`active["10.1/x"].year: ...`).
 *
 * @module
 */
import { z } from "zod";
import {
  MAX_AUTHORS,
  MAX_FIELD,
  MAX_LINKS,
  MAX_NOTE,
  MAX_TITLE,
  normalizeKey,
  nowStamp,
} from "./merge.ts";
import type { ShelfRecord } from "./record.ts";

/** Largest record accepted, in bytes of JSON (a KV value holds 64 KiB; merges add some). */
export const MAX_IMPORTED_RECORD_BYTES = 40_000;

/** Largest import accepted, in characters. */
export const MAX_IMPORT_CHARS = 5_000_000;

const text = (max: number) => z.string().max(max);
const nullableText = (max: number) => text(max).nullish().transform((v) => v ?? null);

const retractionSchema = z.object({
  kind: z.enum(["retraction", "expression_of_concern"]).default("retraction"),
  notice_doi: z.string(),
  date: z.string().regex(/^\d{4}(?:-\d{2}(?:-\d{2})?)?$/, "expected YYYY, YYYY-MM or YYYY-MM-DD")
    .nullish().transform((v) => v ?? null),
  source: z.enum(["publisher", "retraction-watch", "unknown"]).catch("unknown").default("unknown"),
  label: nullableText(120).catch(null),
});

const recordSchema = z.object({
  doi: z.string(),
  title: text(MAX_TITLE),
  authors: z.array(text(MAX_FIELD)).max(MAX_AUTHORS).nullish().transform((v) => v ?? []),
  year: z.number().int().min(0).max(9999).nullish().transform((v) => v ?? null),
  venue: nullableText(MAX_FIELD),
  alt_dois: z.array(z.string().max(MAX_FIELD)).max(MAX_LINKS).nullish().transform((v) => v ?? []),
  source_tool: z.enum(["arxiv", "semantic_scholar", "doi", "ietf", "github"]).nullish()
    .transform((v) => v ?? null),
  kind: z.enum([
    "article",
    "preprint",
    "inproceedings",
    "book",
    "chapter",
    "thesis",
    "rfc",
    "dataset",
    "software",
    "misc",
  ]).nullish().transform((v) => v ?? null),
  arxiv_id: z.string().regex(
    /^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})$/,
    "expected an arXiv identifier such as 1706.03762",
  )
    .refine((v) => Object.keys(v).length <= MAX_LINKS, `at most ${MAX_LINKS} ORCID entries`)
    .nullish().transform((v) => v ?? null),
  rfc_number: z.number().int().min(1).max(99999).nullish().transform((v) => v ?? null),
  url: z.string().url().max(MAX_FIELD).nullish().transform((v) => v ?? null),
  orcids: z.record(
    z.string().max(MAX_FIELD),
    z.string().regex(/^(?:https:\/\/orcid\.org\/)?\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/),
  )
    .nullish().transform((v) => v ?? null),
  added: z.string().regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/,
    "expected YYYY-MM-DDTHH:MM:SSZ",
  )
    .nullish().transform((v) => v ? v.replace(/\.\d+Z$/, "Z") : null),
  score: z.number().int().min(-1_000_000).max(1_000_000).nullish().transform((v) => v ?? null),
  confirmed: z.boolean().nullish().transform((v) => v ?? false),
  notes: nullableText(MAX_NOTE),
  retraction: retractionSchema.nullish().transform((v) => v ?? null),
});

const bucketSchema = z.record(z.string(), z.unknown());

/** An import that cannot be applied; the message says what is wrong. */
export class ImportError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "ImportError";
  }
}

/** A checked record of an import, with the bucket it was listed in. */
export interface ImportedRecord {
  /** The record, keys normalised. */
  record: ShelfRecord;
  /** Which bucket the data listed it in. */
  listedIn: "active" | "retracted";
}

function place(bucket: string | undefined, key: string, path: PropertyKey[]): string {
  const head = bucket ? `${bucket}[${JSON.stringify(key)}]` : `[${JSON.stringify(key)}]`;
  return head + path.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`).join("");
}

/**
 * Reads import data. Throws {@link ImportError} naming up to five problems;
 * nothing is applied unless every record is valid.
 */
export function parseImport(data: string, now: Date = new Date()): ImportedRecord[] {
  if (data.length > MAX_IMPORT_CHARS) {
    throw new ImportError(
      `the data is ${data.length} characters; at most ${MAX_IMPORT_CHARS} are accepted`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (error) {
    throw new ImportError(`the data is not valid JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ImportError(
      'the data must be a JSON object: {"active": {doi: record}, "retracted": {doi: record}} as action=export format=json gives',
    );
  }
  const top = parsed as Record<string, unknown>;
  const bucketed = "active" in top || "retracted" in top;
  const sources: { bucket: "active" | "retracted" | undefined; entries: [string, unknown][] }[] =
    [];
  if (bucketed) {
    for (const bucket of ["active", "retracted"] as const) {
      if (top[bucket] === undefined || top[bucket] === null) continue;
      const b = bucketSchema.safeParse(top[bucket]);
      if (!b.success || Array.isArray(top[bucket])) {
        throw new ImportError(`"${bucket}" must be an object mapping DOIs to records`);
      }
      sources.push({ bucket, entries: Object.entries(b.data) });
    }
  } else {
    sources.push({ bucket: undefined, entries: Object.entries(top) });
  }
  const problems: string[] = [];
  const out: ImportedRecord[] = [];
  const stamp = nowStamp(now);
  for (const { bucket, entries } of sources) {
    for (const [key, value] of entries) {
      if (problems.length >= 5) break;
      const r = recordSchema.safeParse(value);
      if (!r.success) {
        const issue = r.error.issues[0];
        problems.push(`${place(bucket, key, issue.path)}: ${issue.message}`);
        continue;
      }
      const v = r.data;
      const doi = normalizeKey(v.doi);
      if (!doi) {
        problems.push(
          `${place(bucket, key, ["doi"])}: not a DOI (10.NNNN/...) or github:owner/repo key`,
        );
        continue;
      }
      const alts: string[] = [];
      for (const [i, a] of v.alt_dois.entries()) {
        const k = normalizeKey(a);
        if (!k) problems.push(`${place(bucket, key, ["alt_dois", i])}: not a DOI`);
        else if (k !== doi && !alts.includes(k)) alts.push(k);
      }
      let retraction = null;
      if (v.retraction) {
        const notice = normalizeKey(v.retraction.notice_doi);
        if (!notice || notice.startsWith("github:")) {
          problems.push(`${place(bucket, key, ["retraction", "notice_doi"])}: not a DOI`);
          continue;
        }
        retraction = { ...v.retraction, notice_doi: notice };
      } else if (bucket === "retracted") {
        problems.push(
          `${
            place(bucket, key, ["retraction"])
          }: a record listed as retracted needs its retraction notice`,
        );
        continue;
      }
      if (!v.title.trim()) {
        problems.push(`${place(bucket, key, ["title"])}: empty title`);
        continue;
      }
      const built: ShelfRecord = {
        doi,
        title: v.title,
        authors: v.authors,
        year: v.year,
        venue: v.venue,
        alt_dois: alts.sort(),
        source_tool: v.source_tool,
        kind: v.kind,
        arxiv_id: v.arxiv_id,
        rfc_number: v.rfc_number,
        url: v.url,
        orcids: v.orcids,
        added: v.added ?? stamp,
        score: v.score,
        confirmed: v.confirmed,
        notes: v.notes,
        retraction,
      };
      const bytes = new TextEncoder().encode(JSON.stringify(built)).length;
      if (bytes > MAX_IMPORTED_RECORD_BYTES) {
        problems.push(
          `${
            place(bucket, key, [])
          }: the record is ${bytes} bytes, more than the ${MAX_IMPORTED_RECORD_BYTES} accepted; shorten its authors, notes or other DOIs`,
        );
        continue;
      }
      out.push({ listedIn: bucket ?? "active", record: built });
    }
  }
  if (problems.length > 0) {
    throw new ImportError(`nothing was imported: ${problems.join("; ")}`);
  }
  return out;
}

/** The JSON export of the given buckets. */
export function toJson(
  active: readonly ShelfRecord[],
  retracted: readonly ShelfRecord[] | undefined,
): string {
  const obj: Record<string, unknown> = { format: "parkour-shelf", version: 1 };
  obj.active = Object.fromEntries(active.map((r) => [r.doi, r]));
  if (retracted) obj.retracted = Object.fromEntries(retracted.map((r) => [r.doi, r]));
  return JSON.stringify(obj, null, 2);
}
