/**
 * The shelf in PostgreSQL (`--shelf postgres://...`), for a deployment of
 * several replicas: one table of records keyed by principal, bucket and
 * DOI, and one revision row per principal.
 *
 * A change runs in one transaction that first locks the principal's
 * revision row (`SELECT ... FOR UPDATE`), then reads the shelf, applies the
 * change and writes only what it changed. Writers of one principal are thus
 * serialised whichever replica they run on, and none overwrites another's
 * work; different principals never wait for each other.
 *
 * @module
 */
import type postgres from "postgres";
import { emptyState } from "./merge.ts";
import type { BucketName, ShelfRecord, ShelfState } from "./record.ts";
import { changesSince, recordTexts, type ShelfStore } from "./store.ts";

type Sql = ReturnType<typeof postgres>;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS parkour_shelf_meta (
     principal text PRIMARY KEY,
     rev bigint NOT NULL DEFAULT 0
   )`,
  `CREATE TABLE IF NOT EXISTS parkour_shelf (
     principal text NOT NULL,
     bucket text NOT NULL CHECK (bucket IN ('active', 'retracted')),
     doi text NOT NULL,
     record jsonb NOT NULL,
     PRIMARY KEY (principal, bucket, doi)
   )`,
];

/** The principal id of the process's own shelf (stdio, the static token's owner). */
export const SOLE_PRINCIPAL = "local";

/** A connection pool shared by every principal's store. */
export class PostgresShelves {
  readonly #sql: Sql;
  readonly where: string;

  private constructor(sql: Sql, where: string) {
    this.#sql = sql;
    this.where = where;
  }

  /** Connects and creates the tables if needed; errors name the address without its password. */
  static async open(url: string): Promise<PostgresShelves> {
    const where = url.replace(/\/\/[^@/]*@/, "//***@");
    // Imported on first need: processes with another shelf never load the driver.
    const { default: connect } = await import("postgres");
    const sql = connect(url, {
      max: 5,
      onnotice: () => {},
      connect_timeout: 5,
      idle_timeout: 30,
    });
    try {
      // Two replicas starting at once may race on CREATE TABLE: a lock orders them.
      await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(7314159)`;
        for (const statement of SCHEMA) await tx.unsafe(statement);
      });
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw new Error(
        `cannot open the shelf in PostgreSQL at ${where} (${(error as Error).message})`,
      );
    }
    return new PostgresShelves(sql, where);
  }

  /** The store of one principal. */
  store(principal: string, owner = false): PostgresStore {
    return new PostgresStore(this.#sql, principal, owner ? this : undefined);
  }

  /** Whether the database answers. */
  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      await this.#sql`SELECT 1`;
      return { ok: true, detail: this.where };
    } catch (error) {
      return { ok: false, detail: `${this.where}: ${(error as Error).message}` };
    }
  }

  /** Closes the pool. */
  async end(): Promise<void> {
    await this.#sql.end({ timeout: 2 });
  }
}

/** One principal's shelf in PostgreSQL. */
export class PostgresStore implements ShelfStore {
  readonly kind = "postgres" as const;
  readonly #sql: Sql;
  readonly #principal: string;
  readonly #pool?: PostgresShelves;

  /** @internal Use {@link PostgresShelves.store}. */
  constructor(sql: Sql, principal: string, pool?: PostgresShelves) {
    this.#sql = sql;
    this.#principal = principal;
    this.#pool = pool;
  }

  async #load(tx: Sql | postgres.TransactionSql): Promise<ShelfState> {
    const state = emptyState();
    const rows = await tx<{ bucket: BucketName; doi: string; record: ShelfRecord }[]>`
      SELECT bucket, doi, record FROM parkour_shelf WHERE principal = ${this.#principal}`;
    for (const row of rows) state[row.bucket].set(row.doi, row.record);
    return state;
  }

  /** A snapshot of the shelf. */
  async read(): Promise<ShelfState> {
    return await this.#load(this.#sql);
  }

  /** Runs `change` under the principal's row lock and writes what changed. */
  async update<T>(change: (state: ShelfState) => T): Promise<T> {
    return await this.#sql.begin(async (tx) => {
      await tx`INSERT INTO parkour_shelf_meta (principal) VALUES (${this.#principal})
               ON CONFLICT (principal) DO NOTHING`;
      await tx`SELECT rev FROM parkour_shelf_meta WHERE principal = ${this.#principal} FOR UPDATE`;
      const state = await this.#load(tx);
      const before = recordTexts(state);
      const result = change(state);
      const { sets, deletes } = changesSince(before, state);
      for (const [bucket, doi, r] of sets) {
        await tx`INSERT INTO parkour_shelf (principal, bucket, doi, record)
                 VALUES (${this.#principal}, ${bucket}, ${doi}, ${tx.json(r as never)})
                 ON CONFLICT (principal, bucket, doi) DO UPDATE SET record = EXCLUDED.record`;
      }
      for (const [bucket, doi] of deletes) {
        await tx`DELETE FROM parkour_shelf
                 WHERE principal = ${this.#principal} AND bucket = ${bucket} AND doi = ${doi}`;
      }
      const changed = sets.length + deletes.length;
      if (changed > 0) {
        await tx`UPDATE parkour_shelf_meta SET rev = rev + 1 WHERE principal = ${this.#principal}`;
      }
      return result;
    }) as T;
  }

  /** Empties the principal's shelf; resolves to how many records there were. */
  async clear(): Promise<number> {
    return await this.#sql.begin(async (tx) => {
      await tx`INSERT INTO parkour_shelf_meta (principal) VALUES (${this.#principal})
               ON CONFLICT (principal) DO NOTHING`;
      await tx`SELECT rev FROM parkour_shelf_meta WHERE principal = ${this.#principal} FOR UPDATE`;
      const deleted = await tx`DELETE FROM parkour_shelf WHERE principal = ${this.#principal}`;
      await tx`UPDATE parkour_shelf_meta SET rev = rev + 1 WHERE principal = ${this.#principal}`;
      return deleted.count;
    }) as number;
  }

  /** Closes the pool when this is the process's own store; a principal's leaves it open. */
  close(): void {
    this.#pool?.end().catch(() => {});
  }
}
