/**
 * The citation record: what a source hands the research shelf when the
 * agent inspects one citable work (a paper, an RFC, a citable repository).
 *
 * Sources build a {@link CitationInput} from first-party metadata only;
 * the shelf keys it by DOI (or `github:owner/repo` for repositories without
 * one), merges the same work found under several DOIs and keeps retracted
 * works apart.
 *
 * @module
 */
import type { Trusted } from "../trust.ts";

/** A retraction or expression of concern, from CrossRef update records. */
export interface Retraction {
  /** What happened. */
  kind: "retraction" | "expression_of_concern";
  /** DOI of the notice (validated `10.x/...`). */
  noticeDoi: string;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  date?: string;
  /** Who reported it. */
  source: "publisher" | "retraction-watch" | "unknown";
  /** The notice's label (at most 120 printable characters). */
  label?: string;
}

/** Which tool or interception produced a record. */
export type SourceTool = "arxiv" | "semantic_scholar" | "doi" | "ietf" | "github";

/** Kind of work, for BibTeX entry types. */
export type WorkKind =
  | "article"
  | "preprint"
  | "inproceedings"
  | "book"
  | "chapter"
  | "thesis"
  | "rfc"
  | "dataset"
  | "software"
  | "misc";

/** A work as a source describes it. */
export interface CitationInput {
  /** Primary DOI, lowercased (`10.48550/arxiv.1706.03762`), or `github:owner/repo`. */
  doi: string;
  /** Title. */
  title: string;
  /** Authors as "Family, Given" where known. */
  authors: string[];
  /** Year of publication. */
  year?: number;
  /** Journal, proceedings, publisher series ("IETF" for RFCs). */
  venue?: string;
  /** Other DOIs of the same work (the arXiv DOI of a journal paper, versions). */
  altDois?: string[];
  /** The tool that saw it. */
  sourceTool: SourceTool;
  /** Kind of work. */
  kind?: WorkKind;
  /** arXiv identifier without version, for BibTeX `eprint`. */
  arxivId?: string;
  /** RFC number, for BibTeX `number` of RFC reports. */
  rfcNumber?: number;
  /** Canonical landing URL. */
  url?: string;
  /** Author name to ORCID iD. */
  orcids?: Record<string, string>;
  /** A retraction or expression of concern. */
  retraction?: Retraction;
}

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
