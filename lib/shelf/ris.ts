/**
 * RIS export of shelf records: one `TY` ... `ER` block per record, with the
 * type code of its kind of work (`JOUR`, `CONF`, `RPRT`, `BOOK`, `CHAP`,
 * `THES`, `DATA`, `COMP`, `GEN` for preprints and anything else). Values are
 * flattened to one line each, since RIS is line-based.
 *
 * @module
 */
import {
  arxivIdOf,
  displayDoi,
  effectiveKind,
  flatten,
  landingUrl,
  retractionNote,
} from "./bibtex.ts";
import type { ShelfRecord, WorkKind } from "./record.ts";

const TYPE: Record<WorkKind, string> = {
  article: "JOUR",
  preprint: "GEN",
  inproceedings: "CONF",
  book: "BOOK",
  chapter: "CHAP",
  thesis: "THES",
  rfc: "RPRT",
  dataset: "DATA",
  software: "COMP",
  misc: "GEN",
};

/** The RIS type code of a record. */
export function risType(record: ShelfRecord): string {
  return TYPE[effectiveKind(record)];
}

/** One record as a RIS block. */
export function toRisEntry(record: ShelfRecord): string {
  const lines: string[] = [];
  const add = (tag: string, value: string | number | null | undefined) => {
    if (value === null || value === undefined) return;
    const text = flatten(String(value));
    if (text) lines.push(`${tag}  - ${text}`);
  };
  const kind = effectiveKind(record);
  add("TY", TYPE[kind]);
  for (const a of record.authors) add("AU", a);
  add("TI", record.title || "Untitled");
  if (kind === "rfc") {
    add(
      "PB",
      record.venue && record.venue !== "IETF" ? record.venue : "Internet Engineering Task Force",
    );
    add("T3", "Request for Comments");
    add("IS", record.rfc_number);
  } else if (kind === "book") add("PB", record.venue);
  else add("T2", record.venue);
  add("PY", record.year);
  add("DO", displayDoi(record.doi));
  const arxiv = arxivIdOf(record);
  if (arxiv) add("M1", `arXiv:${arxiv}`);
  add("UR", landingUrl(record));
  add("N1", retractionNote(record));
  lines.push("ER  - ");
  return lines.join("\n");
}

/** Records as one RIS file. */
export function toRis(records: readonly ShelfRecord[]): string {
  return records.map(toRisEntry).join("\n\n") + "\n";
}
