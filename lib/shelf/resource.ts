/**
 * The shelf's MCP resources:
 *
 * - `research://shelf`: a read-only rendering of the shelf (both buckets) in
 *   the tools' envelope: frontmatter with the counts, then the tables
 *   fenced, since titles and notes are external or user text;
 * - `research://shelf/export.json`: the whole shelf as the JSON export
 *   (both buckets, every entry, no envelope: the text is the file), which
 *   `action=import` takes back in one call. Unlike a tool answer it is not
 *   cut by the response cap, so a shelf of any size saves as one file.
 *
 * @module
 */
import { renderRecords } from "../envelope/formats.ts";
import { envelopeReady, Frontmatter } from "../envelope/frontmatter.ts";
import { buildResponse, type FencedPart } from "../envelope/response.ts";
import { trusted } from "../trust.ts";
import { toJson } from "./json.ts";
import { byAdded } from "./merge.ts";
import { currentShelf } from "./mod.ts";
import { countsOf } from "./shelf.ts";
import { ACTIVE_COLUMNS, activeRows, RETRACTED_COLUMNS, retractedRows } from "./table.ts";

/** The resource's URI. */
export const SHELF_RESOURCE_URI = "research://shelf";

/** What the server registers. */
export const SHELF_RESOURCE = {
  name: "research_shelf",
  uri: SHELF_RESOURCE_URI,
  title: "Research shelf",
  description:
    "The works tracked on the research shelf (read-only): active citations and, apart, retracted works. Edit it with the research shelf tool.",
  mimeType: "text/markdown",
} as const;

/** The resource's text now. */
export async function shelfResourceText(): Promise<string> {
  await envelopeReady();
  const state = await currentShelf().snapshot();
  const counts = countsOf(state);
  const front = new Frontmatter().set("active", counts.active)
    .set("confirmed", counts.confirmed).set("retracted", counts.retracted);
  const fences: FencedPart[] = [];
  const active = byAdded(state.active);
  const retracted = byAdded(state.retracted);
  if (active.length > 0) {
    fences.push({
      title: "Active (citable)",
      content: renderRecords(activeRows(active), "markdown", { columns: ACTIVE_COLUMNS }).text,
    });
  }
  if (retracted.length > 0) {
    fences.push({
      title: "Retracted (not citable)",
      content:
        renderRecords(retractedRows(retracted), "markdown", { columns: RETRACTED_COLUMNS }).text,
    });
  }
  if (fences.length === 0) front.append("note", trusted.text`the research shelf is empty`);
  return buildResponse({ frontmatter: front, fences }, { toolName: (key) => key }).content[0].text;
}

/** The whole-shelf JSON export's URI. */
export const SHELF_EXPORT_URI = "research://shelf/export.json";

/** What the server registers for the whole-shelf export. */
export const SHELF_EXPORT_RESOURCE = {
  name: "research_shelf_export",
  uri: SHELF_EXPORT_URI,
  title: "Research shelf export (JSON)",
  description:
    "The whole research shelf as one JSON file (active and retracted works, every entry): save it as is, and restore it with the research shelf tool's action=import data=<the file>.",
  mimeType: "application/json",
} as const;

/** The whole-shelf export now: the file itself, active and retracted works. */
export async function shelfExportText(): Promise<string> {
  const state = await currentShelf().snapshot();
  return toJson(byAdded(state.active), byAdded(state.retracted));
}
