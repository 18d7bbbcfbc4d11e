/**
 * The citation record a source hands the research shelf when the agent
 * inspects one citable work (a paper, an RFC, a citable repository): the
 * vocabulary sources and content speak, below the shelf that stores it
 * (`lib/shelf/record.ts` holds the stored form).
 *
 * Sources build a {@link CitationInput} from first-party metadata only;
 * the shelf keys it by DOI (or `github:owner/repo` for repositories without
 * one), merges the same work found under several DOIs and keeps retracted
 * works apart.
 *
 * @module
 */

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
