/**
 * BibTeX export of shelf records, valid for BibTeX, Biber and the parsers
 * reference managers use:
 *
 * - entry types from the kind of work: `@article` (journal), `@inproceedings`
 *   (proceedings), `@misc` with `eprint`/`archivePrefix` for arXiv
 *   preprints, `@techreport` with `institution`, `type` and `number` for
 *   RFCs, `@book`, `@incollection`, `@misc` for software, data sets and
 *   anything whose required fields are missing (an article without a journal
 *   would make BibTeX warn);
 * - every special character escaped in every field (`{ } \ % $ & # _ ~ ^`
 *   and `< >`), whitespace and control characters flattened to single
 *   spaces, titles double-braced so styles keep their capitalisation;
 * - keys `familyYEAR` (or `rfcNNNN`), ASCII only, unique within one export
 *   (`vaswani2017`, `vaswani2017a`, `vaswani2017b`, ...).
 *
 * @module
 */
import type { ShelfRecord, WorkKind } from "./record.ts";

const SPECIAL: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "{": "\\{",
  "}": "\\}",
  "%": "\\%",
  "$": "\\$",
  "&": "\\&",
  "#": "\\#",
  "_": "\\_",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
  "<": "\\textless{}",
  ">": "\\textgreater{}",
};

/** Flattens whitespace and control characters to single spaces. */
export function flatten(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.toWellFormed().replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
}

/** Escapes text for a braced BibTeX field value. */
export function escapeBibtex(text: string): string {
  return flatten(text).replace(/[\\{}%$&#_~^<>]/g, (c) => SPECIAL[c])
    // TeX ligatures (-- ---, `` '', ?` !`) would turn into dashes and quotes: break them.
    .replace(/([-`'])(?=[-`'])/g, "$1{}").replace(/([?!])(?=`)/g, "$1{}");
}

/** The work kind a record is exported as (its own, or inferred). */
export function effectiveKind(record: ShelfRecord): WorkKind {
  if (record.kind) return record.kind;
  if (record.rfc_number !== null || record.source_tool === "ietf") return "rfc";
  if (record.source_tool === "github") return "software";
  if (record.doi.startsWith("10.48550/arxiv.") || record.doi.startsWith("10.1101/")) {
    return "preprint";
  }
  if (record.venue) return "article";
  return "misc";
}

function rfcNumber(record: ShelfRecord): number | undefined {
  if (record.rfc_number !== null) return record.rfc_number;
  for (const k of [record.doi, ...record.alt_dois]) {
    const m = /^10\.17487\/rfc(\d{1,5})$/.exec(k);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** The arXiv identifier of a record (its own, or from an arXiv DOI). */
export function arxivIdOf(record: ShelfRecord): string | undefined {
  if (record.arxiv_id) return record.arxiv_id;
  for (const k of [record.doi, ...record.alt_dois]) {
    if (k.startsWith("10.48550/arxiv.")) return k.slice("10.48550/arxiv.".length);
  }
  return undefined;
}

function asciiFold(text: string): string {
  return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .replace(/ß/g, "ss").replace(/[æÆ]/g, "ae").replace(/[øØ]/g, "o").replace(/[łŁ]/g, "l");
}

/** The base of a record's key, before de-duplication. */
export function baseKey(record: ShelfRecord): string {
  const rfc = rfcNumber(record);
  if (rfc !== undefined && effectiveKind(record) === "rfc") return `rfc${rfc}`;
  const first = record.authors[0];
  let word = "";
  if (first) {
    const family = first.includes(",")
      ? first.slice(0, first.indexOf(","))
      : first.split(/\s+/).at(-1)!;
    word = asciiFold(family).toLowerCase().replace(/[^a-z]/g, "");
  }
  if (!word) {
    const title = asciiFold(record.title).toLowerCase().split(/[^a-z0-9]+/)
      .find((w) => w.length > 3 && !["with", "from", "that", "this", "into"].includes(w));
    word = title?.replace(/[^a-z]/g, "") || "anon";
  }
  return `${word.slice(0, 40)}${record.year ?? "nd"}`;
}

function suffix(n: number): string {
  // 1 -> a, 26 -> z, 27 -> aa, ...
  let s = "";
  while (n > 0) {
    n--;
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return s;
}

/** Unique keys for records, in order. */
export function uniqueKeys(records: readonly ShelfRecord[]): string[] {
  const used = new Set<string>();
  return records.map((r) => {
    const base = baseKey(r);
    let key = base;
    for (let n = 1; used.has(key); n++) key = base + suffix(n);
    used.add(key);
    return key;
  });
}

function authorList(authors: readonly string[]): string {
  return authors.map((a) => {
    const escaped = escapeBibtex(a);
    // A name holding the word "and" (an organisation) must not be split.
    return /\band\b/i.test(escaped) ? `{${escaped}}` : escaped;
  }).join(" and ");
}

/** The retraction note of a record, in words. */
export function retractionNote(record: ShelfRecord): string | undefined {
  const r = record.retraction;
  if (!r) return undefined;
  const what = r.kind === "retraction" ? "RETRACTED" : "EXPRESSION OF CONCERN";
  let text = `${what}: notice ${r.notice_doi}`;
  if (r.date) text += ` (${r.date})`;
  if (r.source !== "unknown") text += `, reported by ${r.source}`;
  return text;
}

/** One record as a BibTeX entry under `key`. */
export function toBibtexEntry(record: ShelfRecord, key: string): string {
  const kind = effectiveKind(record);
  const fields: [string, string][] = [];
  const add = (name: string, value: string | number | null | undefined, raw = false) => {
    if (value === null || value === undefined || value === "") return;
    const text = typeof value === "number" ? String(value) : raw ? value : escapeBibtex(value);
    if (text) fields.push([name, text]);
  };
  let type = "misc";
  const venue = record.venue ?? undefined;
  const rfc = rfcNumber(record);
  const arxiv = arxivIdOf(record);
  if (record.authors.length > 0) add("author", authorList(record.authors), true);
  fields.push(["title", `{${escapeBibtex(record.title) || "Untitled"}}`]);
  switch (kind) {
    case "article":
      if (venue) {
        type = "article";
        add("journal", venue);
      }
      break;
    case "inproceedings":
      if (venue) {
        type = "inproceedings";
        add("booktitle", venue);
      }
      break;
    case "chapter":
      if (venue) {
        type = "incollection";
        add("booktitle", venue);
      }
      break;
    case "book":
      if (venue) {
        type = "book";
        add("publisher", venue);
      }
      break;
    case "rfc":
      if (rfc !== undefined) {
        type = "techreport";
        add("institution", venue && venue !== "IETF" ? venue : "Internet Engineering Task Force");
        add("type", "Request for Comments");
        add("number", rfc);
      }
      break;
    case "software":
      add("note", "Software");
      break;
    case "dataset":
      add("note", "Dataset");
      break;
    case "thesis":
      add("note", "Thesis");
      if (venue) add("howpublished", venue);
      break;
    default:
      if (venue && kind !== "preprint") add("howpublished", venue);
  }
  add("year", record.year);
  add("doi", displayDoi(record.doi));
  if (arxiv) {
    add("eprint", arxiv);
    add("archiveprefix", "arXiv");
  }
  const url = landingUrl(record);
  if (url) add("url", escapeUrl(url), true);
  add("note", retractionNote(record));
  const merged = mergeNotes(fields);
  const body = merged.map(([name, value]) => `  ${name} = {${value}}`).join(",\n");
  return `@${type}{${key},\n${body}\n}`;
}

/** Two `note` fields become one (BibTeX takes only the first). */
function mergeNotes(fields: [string, string][]): [string, string][] {
  const notes = fields.filter(([n]) => n === "note").map(([, v]) => v);
  if (notes.length < 2) return fields;
  const out = fields.filter(([n]) => n !== "note");
  out.push(["note", notes.join(". ")]);
  return out;
}

/**
 * A key as exports show it: undefined for `github:` keys; DOIs as stored
 * (lowercased; DOIs are case-insensitive), except RFC DOIs, which keep their
 * registered form `10.17487/RFC9110`.
 */
export function displayDoi(key: string): string | undefined {
  if (key.startsWith("github:")) return undefined;
  return key.replace(/^10\.17487\/rfc/, "10.17487/RFC");
}

/** The record's URL, or the repository's for a `github:` key. */
export function landingUrl(record: ShelfRecord): string | undefined {
  if (record.url) return record.url;
  if (record.doi.startsWith("github:")) return `https://github.com/${record.doi.slice(7)}`;
  return undefined;
}

/** A URL for a braced field: only the characters BibTeX itself cares about are escaped. */
function escapeUrl(url: string): string {
  return flatten(url).replace(/[{}\\%#]/g, (c) => encodeURIComponent(c));
}

/** Records as one BibTeX file, entries separated by a blank line. */
export function toBibtex(records: readonly ShelfRecord[]): string {
  const keys = uniqueKeys(records);
  return records.map((r, i) => toBibtexEntry(r, keys[i])).join("\n\n") + "\n";
}
