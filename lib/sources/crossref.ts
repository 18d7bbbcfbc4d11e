/**
 * DOI enrichment shared by the paper sources (arXiv, Semantic Scholar, DOI):
 * CrossRef (or DataCite) metadata and the formatted citation from doi.org.
 * (Interface first: the DOI source fills it in.)
 *
 * @module
 */
import type { Retraction } from "../shelf/record.ts";

/** A correction notice. */
export interface Correction {
  /** DOI of the notice. */
  noticeDoi: string;
  /** `YYYY[-MM[-DD]]`. */
  date?: string;
}

/** What CrossRef or DataCite add to a DOI. */
export interface Enrichment {
  /** Retraction or expression of concern, if any. */
  retraction?: Retraction;
  /** Latest correction or erratum, if any. */
  correction?: Correction;
  /** Related DOIs by relation (`is_preprint_of`, `has_version`, ...), validated and lowercased. */
  relations: Record<string, string[]>;
  /** Licence URL or SPDX id. */
  license?: string;
  /** Citation count as CrossRef reports it. */
  citedBy?: number;
  /** CrossRef work type or DataCite resourceTypeGeneral. */
  type?: string;
  /** Author name to ORCID iD. */
  orcids?: Record<string, string>;
}

/** CrossRef/DataCite enrichment of `doi`; undefined when unavailable. Never throws. */
export function enrichDoi(_doi: string, _signal?: AbortSignal): Promise<Enrichment | undefined> {
  return Promise.resolve(undefined);
}

/** The APA citation of `doi` from doi.org; undefined when unavailable. Never throws. */
export function formattedCitation(
  _doi: string,
  _signal?: AbortSignal,
): Promise<string | undefined> {
  return Promise.resolve(undefined);
}
