/**
 * The research shelf: the works the agent inspected, in an active bucket
 * (citable) and a retracted bucket (never exported as citable unless asked),
 * with the user's confirmations, scores and notes.
 *
 * Every operation is one transaction on the {@link ShelfStore}, so several
 * callers (concurrent tool calls, or several server processes sharing one
 * KV store) never lose each other's writes.
 *
 * @module
 */
import type { Profile } from "../config.ts";
import { type Trusted, trusted } from "../trust.ts";
import { log } from "../log.ts";
import { type ImportedRecord, parseImport } from "./json.ts";
import { lookup, normalizeKey, nowStamp, recordFromInput, upsert } from "./merge.ts";
import type { CitationInput, ShelfRecord, ShelfState, TrackResult } from "./record.ts";
import { MemoryStore, type ShelfStore } from "./store.ts";

/** The shelf tool's name per profile. */
export const SHELF_TOOL_NAMES: Record<Profile, string> = {
  desktop: "research_shelf",
  code: "ResearchShelf",
};

/** Records one import transaction handles (keeps KV transactions small). */
const IMPORT_CHUNK = 100;

/** What an import did. */
export interface ImportSummary {
  /** Records that matched nothing on the shelf. */
  created: number;
  /** Records merged into existing ones. */
  updated: number;
  /** Of all imported records, how many are in the retracted bucket now. */
  retracted: number;
}

/** Counts of a shelf state. */
export interface ShelfCounts {
  /** Active records. */
  active: number;
  /** Active records the user confirmed. */
  confirmed: number;
  /** Retracted records. */
  retracted: number;
}

/** Counts of `state`. */
export function countsOf(state: ShelfState): ShelfCounts {
  let confirmed = 0;
  for (const r of state.active.values()) if (r.confirmed) confirmed++;
  return { active: state.active.size, confirmed, retracted: state.retracted.size };
}

/** The research shelf over a store. */
export class Shelf {
  readonly store: ShelfStore;
  readonly #toolName: string;

  /** A shelf over `store` (memory by default) for the tool names of `profile`. */
  constructor(store: ShelfStore = new MemoryStore(), profile: Profile = "desktop") {
    this.store = store;
    this.#toolName = SHELF_TOOL_NAMES[profile];
  }

  /** The status line: `N tracked (M confirmed[, R retracted]) — use <tool> to review`. */
  status(state: ShelfState): Trusted | undefined {
    const c = countsOf(state);
    if (c.active === 0 && c.retracted === 0) return undefined;
    const tool = trusted.matching(this.#toolName, /^[A-Za-z_]+$/);
    return c.retracted > 0
      ? trusted
        .text`${c.active} tracked (${c.confirmed} confirmed, ${c.retracted} retracted) — use ${tool} to review`
      : trusted.text`${c.active} tracked (${c.confirmed} confirmed) — use ${tool} to review`;
  }

  /**
   * Adds or merges a work a source inspected. Never throws: a failure is
   * logged and gives an empty result.
   */
  async track(input: CitationInput): Promise<TrackResult> {
    try {
      const incoming = recordFromInput(input, nowStamp());
      if (!incoming) return {};
      return await this.store.update((state) => {
        const outcome = upsert(state, incoming);
        let note: Trusted | undefined;
        if (outcome.movedToRetracted) {
          note = trusted.text`existing shelf entry moved to the retracted bucket (not citable)`;
        } else if (outcome.bucket === "retracted" && outcome.created) {
          note = trusted
            .text`tracked in the retracted shelf bucket (not added to the active citations)`;
        } else if (outcome.heldBack) {
          note = trusted
            .text`the shelf already lists this work as retracted; it stays in the retracted bucket`;
        }
        return { status: this.status(state), note };
      });
    } catch (error) {
      log("warn", "shelf: tracking failed", error);
      return {};
    }
  }

  /** A snapshot of both buckets. */
  snapshot(): Promise<ShelfState> {
    return this.store.read();
  }

  /** Marks a work as confirmed; the record, or undefined when not on the shelf. */
  confirm(doi: string): Promise<ShelfRecord | undefined> {
    return this.#edit(doi, (r) => {
      r.confirmed = true;
    });
  }

  /** Sets a work's score. */
  score(doi: string, score: number): Promise<ShelfRecord | undefined> {
    return this.#edit(doi, (r) => {
      r.score = score;
    });
  }

  /** Sets (or with `null` removes) a work's note. */
  note(doi: string, text: string | null): Promise<ShelfRecord | undefined> {
    return this.#edit(doi, (r) => {
      r.notes = text;
    });
  }

  #edit(doi: string, change: (r: ShelfRecord) => void): Promise<ShelfRecord | undefined> {
    const key = normalizeKey(doi);
    if (!key) return Promise.resolve(undefined);
    return this.store.update((state) => {
      const found = lookup(state, key);
      if (!found) return undefined;
      change(found.record);
      return structuredClone(found.record);
    });
  }

  /** Removes works by any of their DOIs; the primary DOIs removed. */
  remove(dois: readonly string[]): Promise<string[]> {
    const keys = dois.map(normalizeKey).filter((k): k is string => k !== undefined);
    return this.store.update((state) => {
      const removed: string[] = [];
      for (const key of keys) {
        const found = lookup(state, key);
        if (found) {
          state[found.bucket].delete(found.record.doi);
          removed.push(found.record.doi);
        }
      }
      return removed;
    });
  }

  /**
   * Imports JSON (an export of this shelf or of parkour-mcp). The data is
   * checked whole first: malformed data throws an `ImportError` and changes
   * nothing. Each record then merges like a tracked work, except that the
   * shelf's own scores, notes and confirmations win over imported ones.
   */
  async import(data: string): Promise<ImportSummary> {
    const records = parseImport(data);
    const summary: ImportSummary = { created: 0, updated: 0, retracted: 0 };
    for (let i = 0; i < records.length; i += IMPORT_CHUNK) {
      const chunk: ImportedRecord[] = records.slice(i, i + IMPORT_CHUNK);
      const part = await this.store.update((state) => {
        const s: ImportSummary = { created: 0, updated: 0, retracted: 0 };
        for (const { record } of chunk) {
          const outcome = upsert(state, structuredClone(record));
          if (outcome.created) s.created++;
          else s.updated++;
          if (outcome.bucket === "retracted") s.retracted++;
        }
        return s;
      });
      summary.created += part.created;
      summary.updated += part.updated;
      summary.retracted += part.retracted;
    }
    return summary;
  }

  /** Empties the shelf; how many records there were. */
  clear(): Promise<number> {
    return this.store.clear();
  }
}
