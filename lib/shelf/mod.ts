/**
 * The research shelf: the works the agent has inspected, for review and
 * citation export.
 *
 * Sources call `currentShelf().track(input)` when a single paper, RFC or
 * citable repository is inspected (never for search results); the
 * `research_shelf` tool and the `research://shelf` resource read and edit
 * it. The shelf lives in memory unless the server was started with
 * `--shelf kv[:path]` (or `PARKOUR_SHELF`), which keeps it in Deno KV.
 *
 * @module
 */
import { ConfigError, type Profile } from "../config.ts";
import type { CitationInput, TrackResult } from "./record.ts";
import { Shelf } from "./shelf.ts";
import { KvStore, MemoryStore, type ShelfStore } from "./store.ts";

export type {
  BucketName,
  CitationInput,
  Retraction,
  ShelfRecord,
  ShelfState,
  SourceTool,
  StoredRetraction,
  TrackResult,
  WorkKind,
} from "./record.ts";
export { Shelf } from "./shelf.ts";
export { KvStore, MemoryStore, type ShelfStore } from "./store.ts";

/** The shelf as sources see it. */
export interface ShelfTracker {
  /** Adds or merges a work; never throws (a failure gives an empty result). */
  track(input: CitationInput): Promise<TrackResult>;
}

let shelf = new Shelf(new MemoryStore());

/** The process's shelf. */
export function currentShelf(): Shelf {
  return shelf;
}

/** Replaces the process's shelf (start-up, tests); closes the previous store. */
export function useShelf(next: Shelf): Shelf {
  if (next !== shelf) shelf.store.close();
  shelf = next;
  return shelf;
}

/** Where the shelf is stored, as `--shelf` and `PARKOUR_SHELF` give it. */
export interface ShelfSpec {
  /** `memory` or `kv`. */
  kind: "memory" | "kv";
  /** The KV file; absent for Deno's default location. */
  path?: string;
}

/** Reads `memory`, `kv` or `kv:PATH`; throws a {@link ConfigError} otherwise. */
export function parseShelfSpec(value: string | undefined, origin = "--shelf"): ShelfSpec {
  if (value === undefined || value === "" || value === "memory") return { kind: "memory" };
  if (value === "kv") return { kind: "kv" };
  if (value.startsWith("kv:") && value.length > 3) return { kind: "kv", path: value.slice(3) };
  throw new ConfigError(
    `invalid ${origin} '${value}'; valid values: memory, kv, kv:PATH (a Deno KV file)`,
  );
}

/**
 * Opens the store a spec names and makes it the process's shelf, with the
 * tool names of `profile`. Errors say which permission or flag is missing.
 */
export async function openShelf(spec: ShelfSpec, profile: Profile): Promise<Shelf> {
  let store: ShelfStore;
  if (spec.kind === "memory") store = new MemoryStore();
  else {
    try {
      store = await KvStore.open(spec.path);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const grant = spec.path
        ? `; grant --allow-read=${spec.path} --allow-write=${spec.path} (or the folder)`
        : "";
      throw new ConfigError(
        `cannot open the shelf store${spec.path ? ` at ${spec.path}` : ""} (${message})${
          /unstable-kv/.test(message) ? "" : grant
        }`,
      );
    }
  }
  return useShelf(new Shelf(store, profile));
}
