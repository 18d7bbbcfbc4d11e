/**
 * The shelf's records: a work as the shelf stores, exports and imports it,
 * its buckets and what tracking one did. What a source hands the shelf (the
 * {@link CitationInput}) is `lib/citation.ts`'s, re-exported here.
 *
 * @module
 */
import type { Trusted } from "../trust.ts";
import type { SourceTool, WorkKind } from "../citation.ts";

export type { CitationInput, Retraction, SourceTool, WorkKind } from "../citation.ts";

/** What tracking did, for the frontmatter. */
export interface TrackResult {
  /** The `shelf:` status line (server-written text). */
  status?: Trusted;
  /** A note to surface (moved to the retracted bucket, and so on). */
  note?: Trusted;
}

/** A retraction as the shelf stores and exports it (snake_case JSON). */
export interface StoredRetraction {
  /** What happened. */
  kind: "retraction" | "expression_of_concern";
  /** DOI of the notice. */
  notice_doi: string;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  date: string | null;
  /** Who reported it. */
  source: "publisher" | "retraction-watch" | "unknown";
  /** The notice's label. */
  label: string | null;
}

/**
 * A work on the shelf, in the form it is stored, exported as JSON and
 * imported again (field names follow parkour-mcp's JSON export, so its
 * exports import here).
 */
export interface ShelfRecord {
  /** Primary DOI (lowercased) or `github:owner/repo`: the record's key. */
  doi: string;
  /** Title (external text). */
  title: string;
  /** Authors, "Family, Given" where known (external text). */
  authors: string[];
  /** Year of publication. */
  year: number | null;
  /** Journal, proceedings, series. */
  venue: string | null;
  /** Other DOIs of the same work, sorted. */
  alt_dois: string[];
  /** The tool that saw it last. */
  source_tool: SourceTool | null;
  /** Kind of work. */
  kind: WorkKind | null;
  /** arXiv identifier without version. */
  arxiv_id: string | null;
  /** RFC number. */
  rfc_number: number | null;
  /** Landing page. */
  url: string | null;
  /** Author name to ORCID iD. */
  orcids: Record<string, string> | null;
  /** First shelved, `YYYY-MM-DDTHH:MM:SSZ`. */
  added: string;
  /** The user's score. */
  score: number | null;
  /** Confirmed by the user as a citation to keep. */
  confirmed: boolean;
  /** The user's note. */
  notes: string | null;
  /** Retraction or expression of concern; a record with one lives in the retracted bucket. */
  retraction: StoredRetraction | null;
}

/** The two buckets of the shelf, keyed by primary DOI. */
export interface ShelfState {
  /** Citable works. */
  active: Map<string, ShelfRecord>;
  /** Retracted works (or under an expression of concern): never exported as citable. */
  retracted: Map<string, ShelfRecord>;
}

/** A bucket's name. */
export type BucketName = "active" | "retracted";
