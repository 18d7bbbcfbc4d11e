/**
 * Merging works into the shelf: the same work found under several DOIs
 * (arXiv and journal, bioRxiv and journal, versions) becomes one record, and
 * a retracted work never sits in the active bucket.
 *
 * Pure functions over a {@link ShelfState}; storage runs them inside one
 * transaction.
 *
 * @module
 */
import type {
  BucketName,
  CitationInput,
  ShelfRecord,
  ShelfState,
  StoredRetraction,
} from "./record.ts";

/** Longest title kept, in characters. */
export const MAX_TITLE = 2000;
/** Most authors kept (a KV value holds at most 64 KiB). */
export const MAX_AUTHORS = 100;
/** Longest author name, venue or URL kept. */
export const MAX_FIELD = 300;
/** Most other DOIs and ORCID entries kept. */
export const MAX_LINKS = 50;
/** Longest note kept. */
export const MAX_NOTE = 4000;

const DOI = /^10\.\d{4,9}\/[-._;()/:A-Za-z0-9<>[\]]+$/;
const GITHUB_KEY = /^github:[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

/**
 * A DOI or shelf key in canonical form: prefixes (`https://doi.org/`,
 * `doi:`) removed, lowercased; undefined when it is neither a DOI nor a
 * `github:owner/repo` key.
 */
export function normalizeKey(value: string): string | undefined {
  let v = value.trim();
  v = v.replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, "");
  if (/^github:/i.test(v)) {
    const key = "github:" + v.slice(7).toLowerCase();
    return GITHUB_KEY.test(key) ? key : undefined;
  }
  if (!DOI.test(v) || v.length > 300) return undefined;
  return v.toLowerCase();
}

/**
 * Priority of a key as a record's primary: the version of record (journal,
 * RFC, other registrants) first, then bioRxiv/medRxiv, then arXiv, then
 * synthetic `github:` keys.
 */
export function keyPriority(key: string): number {
  if (key.startsWith("github:")) return -1;
  if (key.startsWith("10.48550/arxiv.")) return 0;
  if (key.startsWith("10.1101/")) return 1;
  return 2;
}

/** The current time as `YYYY-MM-DDTHH:MM:SSZ`. */
export function nowStamp(now: Date = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function clip(s: string, max: number): string {
  const flat = s.toWellFormed().replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max) : flat;
}

/** A stored record from what a source reported. */
export function recordFromInput(input: CitationInput, added: string): ShelfRecord | undefined {
  const doi = normalizeKey(input.doi);
  if (!doi) return undefined;
  const alts = new Set<string>();
  for (const a of (input.altDois ?? []).slice(0, MAX_LINKS)) {
    const k = normalizeKey(a);
    if (k && k !== doi) alts.add(k);
  }
  const r = input.retraction;
  const noticeDoi = r ? normalizeKey(r.noticeDoi) : undefined;
  return {
    doi,
    title: clip(input.title, MAX_TITLE),
    authors: input.authors.slice(0, MAX_AUTHORS).map((a) => clip(a, MAX_FIELD)).filter(Boolean),
    year: Number.isInteger(input.year) ? input.year! : null,
    venue: input.venue ? clip(input.venue, MAX_FIELD) : null,
    alt_dois: [...alts].sort(),
    source_tool: input.sourceTool,
    kind: input.kind ?? null,
    arxiv_id: input.arxivId ?? null,
    rfc_number: Number.isInteger(input.rfcNumber) ? input.rfcNumber! : null,
    url: input.url ? clip(input.url, MAX_FIELD) : null,
    orcids: input.orcids
      ? Object.fromEntries(Object.entries(input.orcids).slice(0, MAX_LINKS))
      : null,
    added,
    score: null,
    confirmed: false,
    notes: null,
    retraction: r && noticeDoi
      ? {
        kind: r.kind,
        notice_doi: noticeDoi,
        date: r.date ?? null,
        source: r.source,
        label: r.label ? clip(r.label, 120) : null,
      }
      : null,
  };
}

/** Every key a record answers to: its primary and its other DOIs. */
export function keysOf(record: ShelfRecord): string[] {
  return [record.doi, ...record.alt_dois];
}

/** A match of an incoming record in the shelf. */
export interface Match {
  /** Bucket of the existing record. */
  bucket: BucketName;
  /** The existing record. */
  record: ShelfRecord;
}

/** Existing records that are the same work as `keys` (linked by any DOI). */
export function findMatches(state: ShelfState, keys: readonly string[]): Match[] {
  const wanted = new Set(keys);
  const out: Match[] = [];
  for (const bucket of ["active", "retracted"] as const) {
    for (const record of state[bucket].values()) {
      if (keysOf(record).some((k) => wanted.has(k))) out.push({ bucket, record });
    }
  }
  return out;
}

function strongerRetraction(
  a: StoredRetraction | null,
  b: StoredRetraction | null,
): StoredRetraction | null {
  if (!a) return b;
  if (!b) return a;
  // Sticky: a retraction outranks an expression of concern; otherwise the first stays.
  if (a.kind === "expression_of_concern" && b.kind === "retraction") return b;
  return a;
}

/** How user fields combine in a merge. */
export type UserFieldRule = "existing" | "fill";

/**
 * Merges records of one work. Metadata follows the record whose own DOI
 * ranks highest (the version of record describes the work best; a later
 * sighting of the same rank refreshes it), missing fields are filled from the
 * others; DOIs are unioned and the highest-ranked becomes the primary; the
 * earliest `added` stays; a retraction is sticky. User fields (score, notes,
 * confirmation) of `existing` records win; `incoming` only fills what none
 * of them has.
 */
export function mergeRecords(existing: ShelfRecord[], incoming: ShelfRecord): ShelfRecord {
  const all = [...existing, incoming];
  const keys = new Set<string>();
  for (const r of all) for (const k of keysOf(r)) keys.add(k);
  const best = Math.max(...[...keys].map(keyPriority));
  const candidates = [...keys].filter((k) => keyPriority(k) === best);
  const primary = candidates.includes(existing[0]?.doi ?? "")
    ? existing[0].doi
    : candidates.includes(incoming.doi)
    ? incoming.doi
    : candidates.sort()[0];
  // Metadata source: the highest-ranked own DOI; on a tie the incoming (fresher) one.
  const ranked = [incoming, ...existing].sort((a, b) => keyPriority(b.doi) - keyPriority(a.doi));
  const meta = ranked[0];
  const fill = <K extends keyof ShelfRecord>(key: K): ShelfRecord[K] => {
    for (const r of ranked) {
      const v = r[key];
      if (v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0) && v !== "") {
        return v;
      }
    }
    return meta[key];
  };
  const userOrder = [...existing, incoming];
  const firstSet = <K extends "score" | "notes">(key: K): ShelfRecord[K] => {
    for (const r of userOrder) if (r[key] !== null) return r[key];
    return null as ShelfRecord[K];
  };
  let retraction: StoredRetraction | null = null;
  for (const r of userOrder) retraction = strongerRetraction(retraction, r.retraction);
  const added = userOrder.map((r) => r.added).sort()[0];
  keys.delete(primary);
  const alts = [...keys].sort().slice(0, MAX_LINKS);
  return {
    doi: primary,
    title: fill("title"),
    authors: fill("authors"),
    year: fill("year"),
    venue: fill("venue"),
    alt_dois: alts,
    source_tool: meta.source_tool ?? fill("source_tool"),
    kind: fill("kind"),
    arxiv_id: fill("arxiv_id"),
    rfc_number: fill("rfc_number"),
    url: fill("url"),
    orcids: fill("orcids"),
    added,
    score: firstSet("score"),
    confirmed: userOrder.some((r) => r.confirmed),
    notes: firstSet("notes"),
    retraction,
  };
}

/** What {@link upsert} did. */
export interface UpsertOutcome {
  /** The record as stored. */
  record: ShelfRecord;
  /** Where it is now. */
  bucket: BucketName;
  /** Whether no existing record matched. */
  created: boolean;
  /** An active record moved to the retracted bucket. */
  movedToRetracted: boolean;
  /** The work went to the retracted bucket because a linked DOI was already there. */
  heldBack: boolean;
}

/**
 * Adds `incoming` to the shelf or merges it with every record of the same
 * work. A work with a retraction, or linked to a retracted record, lands in
 * the retracted bucket; nothing retracted stays active.
 */
export function upsert(state: ShelfState, incoming: ShelfRecord): UpsertOutcome {
  const matches = findMatches(state, keysOf(incoming));
  // Existing records in a stable order: exact key first, then active before retracted.
  matches.sort((a, b) =>
    Number(b.record.doi === incoming.doi) - Number(a.record.doi === incoming.doi) ||
    (a.bucket === b.bucket ? 0 : a.bucket === "active" ? -1 : 1)
  );
  for (const m of matches) state[m.bucket].delete(m.record.doi);
  const merged = matches.length > 0
    ? mergeRecords(matches.map((m) => m.record), incoming)
    : incoming;
  const wasRetracted = matches.some((m) => m.bucket === "retracted");
  const wasActive = matches.some((m) => m.bucket === "active");
  const retracted = merged.retraction !== null || wasRetracted;
  const bucket: BucketName = retracted ? "retracted" : "active";
  state[bucket].set(merged.doi, merged);
  return {
    record: merged,
    bucket,
    created: matches.length === 0,
    movedToRetracted: retracted && wasActive,
    heldBack: retracted && incoming.retraction === null && matches.length > 0,
  };
}

/** Finds a record by its primary or any other DOI, in either bucket. */
export function lookup(state: ShelfState, key: string): Match | undefined {
  for (const bucket of ["active", "retracted"] as const) {
    const direct = state[bucket].get(key);
    if (direct) return { bucket, record: direct };
  }
  return findMatches(state, [key])[0];
}

/** An empty shelf state. */
export function emptyState(): ShelfState {
  return { active: new Map(), retracted: new Map() };
}

/** Records of a bucket, oldest first. */
export function byAdded(bucket: Map<string, ShelfRecord>): ShelfRecord[] {
  return [...bucket.values()].sort((a, b) =>
    a.added < b.added ? -1 : a.added > b.added ? 1 : a.doi < b.doi ? -1 : 1
  );
}
