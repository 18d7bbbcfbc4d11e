/**
 * The CrossRef/DataCite enrichment as every path that reads a DOI asks for
 * it (the DOI source, arXiv papers, Semantic Scholar papers): the
 * enrichment, or why there is none, and the one warning that says so. An
 * answer without the warning has had its retractions checked; one whose
 * check failed says that it could not be checked, in the same words on
 * every path, so an agent never reads silence as "not retracted".
 *
 * @module
 */
import { type Trusted, trusted } from "../../trust.ts";
import { type Enrichment, enrichment, type Outcome, parseDoi } from "./crossref.ts";

/** Why the enrichment is missing, in the words the warning uses. */
export const ENRICHMENT_FAILURES = [
  "not registered with CrossRef or DataCite",
  "rate limited",
  "upstream error",
  "malformed answer",
  "unreachable",
  "timed out",
] as const;

/** One of {@link ENRICHMENT_FAILURES}. */
export type EnrichmentFailure = (typeof ENRICHMENT_FAILURES)[number];

/** The enrichment of a DOI, or why it could not be had. */
export interface CheckedEnrichment {
  /** The enrichment, when the lookup answered. */
  enrichment?: Enrichment;
  /** Why there is none (undefined when there is one). */
  failure?: EnrichmentFailure;
}

/** The failure words of a lookup's outcome (undefined when it succeeded). */
export function enrichmentFailure(o: Outcome<unknown>): EnrichmentFailure | undefined {
  if (o.ok) return undefined;
  switch (o.reason) {
    case "not_found":
      return "not registered with CrossRef or DataCite";
    case "rate_limited":
      return "rate limited";
    case "malformed":
      return "malformed answer";
    case "network":
      return "unreachable";
    default:
      return "upstream error";
  }
}

/**
 * Looks the enrichment of `doi` up; never throws. With `timeoutMs`, a lookup
 * that takes longer is given up and reported as `timed out`.
 */
export async function checkedEnrichment(
  doi: string,
  signal?: AbortSignal,
  timeoutMs?: number,
): Promise<CheckedEnrichment> {
  const parsed = parseDoi(doi);
  if (!parsed) return { failure: "not registered with CrossRef or DataCite" };
  const lookup = enrichment(parsed, signal).then(
    (o): CheckedEnrichment =>
      o.ok ? { enrichment: o.value } : { failure: enrichmentFailure(o) ?? "upstream error" },
    (): CheckedEnrichment => ({ failure: "unreachable" }),
  );
  if (timeoutMs === undefined) return await lookup;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      lookup,
      new Promise<CheckedEnrichment>((resolve) => {
        timer = setTimeout(() => resolve({ failure: "timed out" }), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The one warning of a failed enrichment: retractions (and the rest) could not be checked. */
export function uncheckedWarning(failure: EnrichmentFailure): Trusted {
  return trusted.text`CrossRef/DataCite metadata was unavailable (${
    trusted.oneOf(ENRICHMENT_FAILURES, failure)
  }), so retractions, corrections, licence and ORCID iDs could not be checked`;
}
