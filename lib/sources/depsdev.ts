/**
 * deps.dev (Open Source Insights): packages, versions, projects,
 * advisories and OpenSSF Scorecards. (Interface first: the packages source
 * fills it in.)
 *
 * @module
 */

/** An OpenSSF Scorecard summary of a source repository. */
export interface Scorecard {
  /** Overall score, 0 to 10. */
  overall: number;
  /** Date of the scorecard run, `YYYY-MM-DD`. */
  date?: string;
  /** Check name to score (0 to 10, or -1 when not applicable). */
  checks: Record<string, number>;
}

/**
 * The Scorecard of a GitHub project (`owner/repo`) from deps.dev; undefined
 * when deps.dev has none or cannot be reached. Never throws.
 */
export function githubScorecard(
  _ownerRepo: string,
  _signal?: AbortSignal,
): Promise<Scorecard | undefined> {
  return Promise.resolve(undefined);
}
