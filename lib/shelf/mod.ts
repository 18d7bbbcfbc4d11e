/**
 * The research shelf: the works the agent has inspected, for review and
 * citation export.
 *
 * Sources call `currentShelf().track(input)` when a single paper, RFC or
 * citable repository is inspected (never for search results); the
 * `research_shelf` tool and the `research://shelf` resource read and edit
 * it. The shelf lives in memory unless the server was started with
 * `--shelf kv[:path]` (or `PARKOUR_SHELF`), which keeps it in Deno KV, or
 * `--shelf postgres://...`, for replicas sharing one database.
 *
 * Each OAuth principal (see `lib/principal.ts`) has a shelf of its own in
 * the same store; the local user and the static token's owner share the
 * process's shelf.
 *
 * @module
 */
import { ConfigError, type Profile } from "../config.ts";
import { currentPrincipal, isSoleUser } from "../principal.ts";
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
/** Makes the store of one principal in the process's store. */
let storeOf: (principal: string) => ShelfStore = () => new MemoryStore();
let profileOf: Profile | undefined;
/** Principals' shelves, most recently used last (bounded: a memory shelf holds its records). */
const shelves = new Map<string, Shelf>();
const MAX_PRINCIPAL_SHELVES = 10_000;

/** The shelf of the running request's principal (the process's shelf outside OAuth). */
export function currentShelf(): Shelf {
  const principal = currentPrincipal();
  if (isSoleUser(principal)) return shelf;
  let mine = shelves.get(principal.id);
  if (mine) {
    shelves.delete(principal.id);
  } else {
    mine = new Shelf(storeOf(principal.id), profileOf);
    if (shelves.size >= MAX_PRINCIPAL_SHELVES) {
      const [oldest, old] = shelves.entries().next().value!;
      shelves.delete(oldest);
      old.store.close();
    }
  }
  shelves.set(principal.id, mine);
  return mine;
}

/**
 * Replaces the process's shelf (start-up, tests); closes the previous store.
 * `forPrincipal` makes each OAuth principal's store (in memory by default).
 */
export function useShelf(next: Shelf, forPrincipal?: (principal: string) => ShelfStore): Shelf {
  if (next !== shelf) shelf.store.close();
  for (const s of shelves.values()) s.store.close();
  shelves.clear();
  shelf = next;
  storeOf = forPrincipal ?? (() => new MemoryStore());
  return shelf;
}

/** Where the shelf is stored, as `--shelf` and `PARKOUR_SHELF` give it. */
export interface ShelfSpec {
  /** `memory`, `kv` or `postgres`. */
  kind: "memory" | "kv" | "postgres";
  /** The KV file (absent for Deno's default location), or the PostgreSQL URL. */
  path?: string;
}

/** Reads `memory`, `kv`, `kv:PATH` or `postgres://...`; throws a {@link ConfigError} otherwise. */
export function parseShelfSpec(value: string | undefined, origin = "--shelf"): ShelfSpec {
  if (value === undefined || value === "" || value === "memory") return { kind: "memory" };
  if (value === "kv") return { kind: "kv" };
  if (value.startsWith("kv:") && value.length > 3) return { kind: "kv", path: value.slice(3) };
  if (/^postgres(ql)?:\/\/[^/]/.test(value)) return { kind: "postgres", path: value };
  throw new ConfigError(
    `invalid ${origin} '${
      value.replace(/\/\/[^@/]*@/, "//***@")
    }'; valid values: memory, kv, kv:PATH (a Deno KV file), postgres://user@host:port/db (PostgreSQL, for replicas)`,
  );
}

let health: (() => Promise<{ ok: boolean; detail: string }>) | undefined;

/** The shelf store's health, for `/healthz` (undefined for a store in this process). */
export function shelfHealth(): Promise<{ ok: boolean; detail: string }> | undefined {
  return health?.();
}

/**
 * Opens the store a spec names and makes it the process's shelf, with the
 * tool names of `profile`. Errors say which permission or flag is missing.
 */
export async function openShelf(spec: ShelfSpec, profile: Profile): Promise<Shelf> {
  let store: ShelfStore;
  let forPrincipal: ((principal: string) => ShelfStore) | undefined;
  profileOf = profile;
  health = undefined;
  if (spec.kind === "memory") store = new MemoryStore();
  else if (spec.kind === "postgres") {
    const { PostgresShelves, SOLE_PRINCIPAL } = await import("./postgres.ts");
    let pool;
    try {
      pool = await PostgresShelves.open(spec.path!);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
    store = pool.store(SOLE_PRINCIPAL, true);
    forPrincipal = (principal) => pool.store(`oauth:${principal}`);
    health = () => pool.health();
  } else {
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
  if (store instanceof KvStore) {
    const kv = store;
    forPrincipal = (principal) => kv.forPrincipal(principal);
  }
  return useShelf(new Shelf(store, profile), forPrincipal);
}
