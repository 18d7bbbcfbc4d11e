/**
 * The research shelf: the works the agent has inspected, for review and
 * citation export. (Interface first; storage, merging and exports follow.)
 *
 * @module
 */
import { trusted } from "../envelope/trusted.ts";
import type { CitationInput, TrackResult } from "./record.ts";

export type { CitationInput, Retraction, SourceTool, TrackResult, WorkKind } from "./record.ts";

/** The shelf as sources see it. */
export interface ShelfTracker {
  /** Adds or merges a work; never throws (a failure gives an empty result). */
  track(input: CitationInput): Promise<TrackResult>;
}

const seen = new Map<string, CitationInput>();

/** The process's shelf. */
export function currentShelf(): ShelfTracker {
  return {
    track(input: CitationInput): Promise<TrackResult> {
      seen.set(input.doi, input);
      return Promise.resolve({ status: trusted.text`${seen.size} tracked` });
    },
  };
}
