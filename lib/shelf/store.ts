/**
 * Where the shelf lives: in memory (the default), or in Deno KV so it
 * survives restarts and can be shared by several server processes.
 *
 * Every change runs as one transaction: read the shelf, apply a pure
 * function, write what changed. In KV each commit checks and bumps one
 * revision key, so two processes writing at once never overwrite each
 * other's work: the loser re-reads and re-applies. SQLite's "database is
 * locked" (KV has no busy wait of its own) is retried with backoff.
 *
 * @module
 */
import { log } from "../log.ts";
import { emptyState } from "./merge.ts";
import type { BucketName, ShelfRecord, ShelfState } from "./record.ts";

/** Storage of the shelf. */
export interface ShelfStore {
  /** What the store is, for logs and the status (`memory`, `kv`, `postgres`). */
  readonly kind: "memory" | "kv" | "postgres";
  /** A snapshot of the shelf. */
  read(): Promise<ShelfState>;
  /**
   * Runs `change` on the current shelf and saves what it changed, atomically.
   * `change` may run more than once (after a conflict), so it must be pure
   * apart from mutating the state it is given.
   */
  update<T>(change: (state: ShelfState) => T): Promise<T>;
  /** Empties both buckets; resolves to how many records there were. */
  clear(): Promise<number>;
  /** Releases the store. */
  close(): void;
}

const BUCKETS = ["active", "retracted"] as const;

/** Every record as JSON, by bucket and DOI: taken before a change, to tell what it touched. */
export function recordTexts(state: ShelfState): Map<string, string> {
  const texts = new Map<string, string>();
  for (const bucket of BUCKETS) {
    for (const [doi, r] of state[bucket]) texts.set(`${bucket}\u0000${doi}`, JSON.stringify(r));
  }
  return texts;
}

/**
 * What a change did, against {@link recordTexts} taken before it: the records
 * to write and the `[bucket, doi]` pairs to delete (what every store writes).
 */
export function changesSince(before: Map<string, string>, state: ShelfState): {
  sets: [BucketName, string, ShelfRecord][];
  deletes: [BucketName, string][];
} {
  const sets: [BucketName, string, ShelfRecord][] = [];
  const kept = new Set<string>();
  for (const bucket of BUCKETS) {
    for (const [doi, r] of state[bucket]) {
      const k = `${bucket}\u0000${doi}`;
      kept.add(k);
      if (before.get(k) !== JSON.stringify(r)) sets.push([bucket, doi, r]);
    }
  }
  const deletes = [...before.keys()].filter((k) => !kept.has(k)).map((k) =>
    k.split("\u0000") as [BucketName, string]
  );
  return { sets, deletes };
}

function cloneState(state: ShelfState): ShelfState {
  return structuredClone(state);
}

/** The shelf in this process's memory. */
export class MemoryStore implements ShelfStore {
  readonly kind = "memory" as const;
  #state: ShelfState = emptyState();

  /** A snapshot of the shelf. */
  read(): Promise<ShelfState> {
    return Promise.resolve(cloneState(this.#state));
  }

  /** Applies `change` to a copy and keeps the copy when it succeeds. */
  update<T>(change: (state: ShelfState) => T): Promise<T> {
    try {
      const next = cloneState(this.#state);
      const result = change(next);
      this.#state = next;
      return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Empties both buckets. */
  clear(): Promise<number> {
    const count = this.#state.active.size + this.#state.retracted.size;
    this.#state = emptyState();
    return Promise.resolve(count);
  }

  /** Nothing to release. */
  close(): void {}
}

const ROOT = "parkour_shelf";
/** Most mutations one KV transaction may hold (KV allows 1000). */
export const MAX_MUTATIONS = 900;

interface Meta {
  /** Generation: `clear` starts a new one; records of older ones are garbage. */
  gen: number;
  /** Revision, bumped by every change. */
  rev: number;
}

/** Thrown when one change would touch more records than a KV transaction allows. */
export class ShelfTooLargeChange extends Error {
  /** Creates the error. */
  constructor(count: number) {
    super(
      `this change touches ${count} records, more than the ${MAX_MUTATIONS} one transaction allows; split it into smaller steps`,
    );
    this.name = "ShelfTooLargeChange";
  }
}

/** Largest record a KV value holds (KV allows 64 KiB, with some room for its encoding). */
export const MAX_RECORD_BYTES = 60_000;

/** Thrown when one record is too large for a KV value. */
export class ShelfRecordTooLarge extends Error {
  /** Creates the error. */
  constructor(doi: string, bytes: number) {
    super(
      `the record of ${doi} is ${bytes} bytes, more than the ${MAX_RECORD_BYTES} a KV store holds; shorten its note`,
    );
    this.name = "ShelfRecordTooLarge";
  }
}

function isLocked(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /database is locked|database table is locked|SQLITE_BUSY|busy/i.test(message);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Options of {@link KvStore.open}. */
export interface KvStoreOptions {
  /** Longest total wait for a locked database before giving up, in ms. */
  lockTimeoutMs?: number;
}

/** The shelf in Deno KV. */
export class KvStore implements ShelfStore {
  readonly kind = "kv" as const;
  readonly #kv: Deno.Kv;
  readonly #lockTimeoutMs: number;
  /** Key prefix: the process's shelf, or one principal's. */
  readonly #root: Deno.KvKey;
  readonly #meta: Deno.KvKey;
  /** Whether closing this store closes the database (the namespaced views share it). */
  readonly #owns: boolean;

  private constructor(kv: Deno.Kv, options: KvStoreOptions, namespace?: string, owns = true) {
    this.#kv = kv;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.#root = namespace === undefined ? [ROOT] : [ROOT, "principal", namespace];
    this.#meta = [...this.#root, "meta"];
    this.#owns = owns;
  }

  /**
   * The shelf of one principal in the same database: its own keys, its own
   * revision; closing it leaves the database open.
   */
  forPrincipal(id: string): KvStore {
    return new KvStore(this.#kv, { lockTimeoutMs: this.#lockTimeoutMs }, id, false);
  }

  /**
   * Opens (or creates) the store at `path`; without a path, Deno's default
   * KV location for this program. Needs `--unstable-kv` and, with a path,
   * read and write permission on it.
   */
  static async open(path?: string, options: KvStoreOptions = {}): Promise<KvStore> {
    const open = (Deno as unknown as { openKv?: (path?: string) => Promise<Deno.Kv> }).openKv;
    if (typeof open !== "function") {
      throw new Error(
        "Deno KV is not enabled: run Deno with --unstable-kv (the start task does)",
      );
    }
    const store = new KvStore(await open.call(Deno, path), options);
    // Creating the meta key is itself a write that may meet a lock.
    await store.#retrying(async () => {
      const meta = await store.#kv.get<Meta>(store.#meta);
      if (meta.value === null) {
        await store.#kv.atomic().check(meta).set(store.#meta, { gen: 0, rev: 0 }).commit();
      }
    });
    return store;
  }

  async #retrying<T>(attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#lockTimeoutMs;
    let delay = 5;
    while (true) {
      try {
        return await attempt();
      } catch (error) {
        if (!isLocked(error) || Date.now() > deadline) throw error;
        await sleep(delay + Math.random() * delay);
        delay = Math.min(delay * 2, 250);
      }
    }
  }

  async #load(): Promise<{ meta: Deno.KvEntryMaybe<Meta>; gen: number; state: ShelfState }> {
    const meta = await this.#kv.get<Meta>(this.#meta);
    const gen = meta.value?.gen ?? 0;
    const state: ShelfState = { active: new Map(), retracted: new Map() };
    const at = this.#root.length + 2;
    for await (const entry of this.#kv.list<ShelfRecord>({ prefix: [...this.#root, "r", gen] })) {
      const bucket = entry.key[at] as BucketName;
      const record = entry.value;
      if ((bucket === "active" || bucket === "retracted") && record && typeof record === "object") {
        state[bucket].set(String(entry.key[at + 1]), record);
      }
    }
    return { meta, gen, state };
  }

  /** A snapshot of the shelf. */
  read(): Promise<ShelfState> {
    return this.#retrying(async () => (await this.#load()).state);
  }

  /** Runs `change` in a checked transaction, retrying on conflicts and locks. */
  async update<T>(change: (state: ShelfState) => T): Promise<T> {
    let conflicts = 0;
    while (true) {
      const outcome = await this.#retrying(async () => {
        const { meta, gen, state } = await this.#load();
        const before = recordTexts(state);
        const result = change(state);
        const { sets, deletes } = changesSince(before, state);
        if (sets.length === 0 && deletes.length === 0) return { done: true, result };
        if (sets.length + deletes.length > MAX_MUTATIONS) {
          throw new ShelfTooLargeChange(sets.length + deletes.length);
        }
        for (const [, , r] of sets) {
          const bytes = new TextEncoder().encode(JSON.stringify(r)).length;
          if (bytes > MAX_RECORD_BYTES) throw new ShelfRecordTooLarge(r.doi, bytes);
        }
        const key = (bucket: BucketName, doi: string): Deno.KvKey => [
          ...this.#root,
          "r",
          gen,
          bucket,
          doi,
        ];
        const op = this.#kv.atomic().check(meta);
        for (const [bucket, doi, r] of sets) op.set(key(bucket, doi), r);
        for (const [bucket, doi] of deletes) op.delete(key(bucket, doi));
        op.set(this.#meta, { gen, rev: (meta.value?.rev ?? 0) + 1 });
        const res = await op.commit();
        return { done: res.ok, result };
      });
      if (outcome.done) return outcome.result;
      conflicts++;
      if (conflicts % 50 === 0) log("debug", `shelf: ${conflicts} write conflicts, retrying`);
      await sleep(Math.random() * Math.min(50, 2 * conflicts));
    }
  }

  /**
   * Empties the shelf in one write (a new generation), then removes the old
   * generation's records in the background; returns how many there were.
   */
  async clear(): Promise<number> {
    while (true) {
      const outcome = await this.#retrying(async () => {
        const { meta, gen, state } = await this.#load();
        const count = state.active.size + state.retracted.size;
        const res = await this.#kv.atomic().check(meta)
          .set(this.#meta, { gen: gen + 1, rev: (meta.value?.rev ?? 0) + 1 }).commit();
        return { ok: res.ok, count, gen };
      });
      if (outcome.ok) {
        await this.#sweep(outcome.gen).catch((error) =>
          log("debug", "shelf: sweeping cleared records failed", error)
        );
        return outcome.count;
      }
      await sleep(Math.random() * 20);
    }
  }

  async #sweep(gen: number): Promise<void> {
    const keys: Deno.KvKey[] = [];
    for await (const e of this.#kv.list({ prefix: [...this.#root, "r", gen] })) keys.push(e.key);
    for (let i = 0; i < keys.length; i += 500) {
      await this.#retrying(() => {
        const op = this.#kv.atomic();
        for (const k of keys.slice(i, i + 500)) op.delete(k);
        return op.commit();
      });
    }
  }

  /** Closes the database (a principal's view leaves it open). */
  close(): void {
    if (!this.#owns) return;
    try {
      this.#kv.close();
    } catch { /* already closed */ }
  }
}
