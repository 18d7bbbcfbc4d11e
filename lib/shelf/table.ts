/**
 * The shelf as rows: what `list` and the `research://shelf` resource show.
 * Titles, authors and notes are external or user text, so the rendered
 * rows always go inside a fence.
 *
 * @module
 */
import type { ShelfRecord } from "./record.ts";

/** Longest title shown in a row. */
export const ROW_TITLE_CHARS = 120;

function cut(text: string | null, max: number): string {
  if (!text) return "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1).trimEnd() + "…" : flat;
}

/** Columns of active rows. */
export const ACTIVE_COLUMNS = ["#", "score", "status", "year", "title", "doi", "source", "note"];
/** Columns of retracted rows. */
export const RETRACTED_COLUMNS = ["#", "title", "doi", "kind", "date", "notice", "source"];

/** Rows of active records. */
export function activeRows(records: readonly ShelfRecord[]): Record<string, unknown>[] {
  return records.map((r, i) => ({
    "#": i + 1,
    score: r.score ?? "—",
    status: r.confirmed ? "confirmed" : "",
    year: r.year ?? "",
    title: cut(r.title, ROW_TITLE_CHARS),
    doi: r.doi,
    source: r.source_tool ?? "—",
    note: cut(r.notes, 80),
  }));
}

/** Rows of retracted records. */
export function retractedRows(records: readonly ShelfRecord[]): Record<string, unknown>[] {
  return records.map((r, i) => ({
    "#": i + 1,
    title: cut(r.title, ROW_TITLE_CHARS),
    doi: r.doi,
    kind: r.retraction?.kind === "expression_of_concern" ? "expression of concern" : "retraction",
    date: r.retraction?.date ?? "—",
    notice: r.retraction?.notice_doi ?? "—",
    source: r.retraction?.source ?? "—",
  }));
}
