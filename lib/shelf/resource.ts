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
 * Beside it, the citable entries as files ready to save:
 * `research://shelf/export.bib` (BibTeX) and `research://shelf/export.ris`
 * (RIS), whose text is the file itself, every active entry, in the order
 * they were added (what the research shelf tool's export gives page by
 * page, fenced).
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
import { toBibtex } from "./bibtex.ts";
import { toRis } from "./ris.ts";

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

/** The whole-shelf export now: the file itself, active and retracted works. */
export async function shelfExportText(): Promise<string> {
  const state = await currentShelf().snapshot();
  return toJson(byAdded(state.active), byAdded(state.retracted));
}

/** A shelf export offered as a resource: its text is the file. */
export interface ShelfExportResource {
  /** The export format it is (as the research shelf tool names it). */
  format: "bibtex" | "ris" | "json";
  /** Resource name. */
  name: string;
  /** Its URI. */
  uri: string;
  /** Title. */
  title: string;
  /** Description for the client. */
  description: string;
  /** The file's media type. */
  mimeType: string;
  /** The file's text now. */
  text(): Promise<string>;
}

async function activeEntries() {
  return byAdded((await currentShelf().snapshot()).active);
}

/** The BibTeX and RIS files of the shelf's citable entries. */
export const SHELF_EXPORT_RESOURCES: readonly ShelfExportResource[] = [
  {
    format: "bibtex",
    name: "research_shelf_bibtex",
    uri: "research://shelf/export.bib",
    title: "Research shelf as BibTeX",
    description:
      "Every citable entry of the research shelf as a BibTeX file (the text is the file itself, ready to save; retracted works are left out).",
    mimeType: "application/x-bibtex",
    text: async () => toBibtex(await activeEntries()),
  },
  {
    format: "ris",
    name: "research_shelf_ris",
    uri: "research://shelf/export.ris",
    title: "Research shelf as RIS",
    description:
      "Every citable entry of the research shelf as an RIS file (the text is the file itself, ready to save; retracted works are left out).",
    mimeType: "application/x-research-info-systems",
    text: async () => toRis(await activeEntries()),
  },
  {
    format: "json",
    name: "research_shelf_export",
    uri: SHELF_EXPORT_URI,
    title: "Research shelf export (JSON)",
    description:
      "The whole research shelf as one JSON file (active and retracted works, every entry): save it as is, and restore it with the research shelf tool's action=import data=<the file>.",
    mimeType: "application/json",
    text: () => shelfExportText(),
  },
];
