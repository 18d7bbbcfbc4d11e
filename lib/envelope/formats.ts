/**
 * Output formats for record-shaped results (lists of papers, packages,
 * search hits).
 *
 * | format   | body text                                  | structuredContent |
 * |----------|--------------------------------------------|-------------------|
 * | markdown | a table when records are flat, else a list | no                |
 * | json     | indented JSON                              | yes               |
 * | toon     | TOON (tabular when records are uniform)    | no                |
 * | pretty   | indented JSON                              | no                |
 * | compact  | JSON on one line                           | no                |
 * | csv      | RFC 4180 CSV; flat records only            | no                |
 *
 * Whatever the format, the text still goes inside the fence: record values
 * come from upstream services.
 *
 * @module
 */
import { encode as toonEncode } from "@toon-format/toon";
import type { OutputFormat } from "../config.ts";

/** A record: a JSON object. */
export type RecordValue = Record<string, unknown>;

/** What a format produced. */
export interface Rendered {
  /** Body text (goes inside the fence). */
  text: string;
  /** Structured copy for MCP `structuredContent` (json only). */
  structured?: Record<string, unknown>;
}

/** Thrown when records cannot be shown in the requested format. */
export class FormatError extends Error {
  /** Creates the error with a message that names a format that works. */
  constructor(message: string) {
    super(message);
    this.name = "FormatError";
  }
}

/** Options of {@link renderRecords}. */
export interface RenderOptions {
  /** Column order; defaults to first-seen key order across records. */
  columns?: string[];
  /** Name of the list in json/toon output; `results` by default. */
  name?: string;
}

function isPrimitive(v: unknown): v is string | number | boolean | null | undefined {
  return v === null || v === undefined || typeof v === "string" ||
    typeof v === "number" || typeof v === "boolean";
}

function columnsOf(records: RecordValue[], columns?: string[]): string[] {
  if (columns) return columns;
  const seen = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

function flatRecords(records: RecordValue[], cols: string[]): boolean {
  return records.every((r) => cols.every((c) => isPrimitive(r[c])));
}

function markdownCell(v: unknown): string {
  return cellText(v).replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(
    /\r\n|[\r\n]/g,
    "<br>",
  );
}

function markdown(records: RecordValue[], cols: string[]): string {
  if (records.length === 0) return "(no results)";
  if (flatRecords(records, cols) && cols.length <= 8) {
    const head = `| ${cols.map(markdownCell).join(" | ")} |`;
    const rule = `| ${cols.map(() => "---").join(" | ")} |`;
    const rows = records.map((r) => `| ${cols.map((c) => markdownCell(r[c])).join(" | ")} |`);
    return [head, rule, ...rows].join("\n");
  }
  return records.map((r, i) => {
    const lines = cols.filter((c) => r[c] !== undefined && r[c] !== null).map(
      (c) => `   - ${c}: ${cellText(r[c]).replace(/\r\n|[\r\n]/g, " ")}`,
    );
    return `${i + 1}.\n${lines.join("\n")}`;
  }).join("\n");
}

function csvField(v: unknown): string {
  const s = cellText(v);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csv(records: RecordValue[], cols: string[]): string {
  if (!flatRecords(records, cols)) {
    throw new FormatError(
      "csv needs flat records (no nested lists or objects); use output=json or output=toon",
    );
  }
  const rows = [cols.map(csvField).join(",")];
  for (const r of records) rows.push(cols.map((c) => csvField(r[c])).join(","));
  return rows.join("\r\n");
}

/** Renders records in `format`. */
export function renderRecords(
  records: RecordValue[],
  format: OutputFormat,
  options: RenderOptions = {},
): Rendered {
  const cols = columnsOf(records, options.columns);
  const name = options.name ?? "results";
  const ordered = records.map((r) => {
    const o: RecordValue = {};
    for (const c of cols) if (r[c] !== undefined) o[c] = r[c];
    return o;
  });
  switch (format) {
    case "markdown":
      return { text: markdown(ordered, cols) };
    case "json":
      return {
        text: JSON.stringify({ [name]: ordered }, null, 2),
        structured: { [name]: ordered },
      };
    case "toon":
      return { text: toonEncode({ [name]: ordered }) };
    case "pretty":
      return { text: JSON.stringify({ [name]: ordered }, null, 2) };
    case "compact":
      return { text: JSON.stringify({ [name]: ordered }) };
    case "csv":
      return { text: csv(ordered, cols) };
  }
}
