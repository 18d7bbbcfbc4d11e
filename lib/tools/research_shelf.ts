/**
 * `research_shelf` (`ResearchShelf`): review and export the works the agent
 * inspected. Papers, RFCs and citable repositories land on the shelf by
 * themselves when one is read through a scholarly source; this tool lists
 * them, records the user's judgement (confirm, score, note), removes them,
 * exports BibTeX, RIS or JSON, imports a JSON export back, and clears it.
 *
 * @module
 */
import { z } from "zod";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { FencedPart, ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import { toBibtex } from "../shelf/bibtex.ts";
import { ImportError, toJson } from "../shelf/json.ts";
import { SHELF_EXPORT_URI } from "../shelf/resource.ts";
import { byAdded, MAX_NOTE, normalizeKey } from "../shelf/merge.ts";
import { currentShelf } from "../shelf/mod.ts";
import type { ShelfRecord } from "../shelf/record.ts";
import { toRis } from "../shelf/ris.ts";
import { SHELF_EXPORT_RESOURCES } from "../shelf/resource.ts";
import { countsOf } from "../shelf/shelf.ts";
import { ShelfRecordTooLarge, ShelfTooLargeChange } from "../shelf/store.ts";
import { ACTIVE_COLUMNS, activeRows, RETRACTED_COLUMNS, retractedRows } from "../shelf/table.ts";
import { defineTool, type ToolContext } from "./registry.ts";

const ACTIONS = [
  "list",
  "confirm",
  "score",
  "note",
  "remove",
  "export",
  "import",
  "clear",
] as const;
/** The actions that only read the shelf; the others change it, and are off unless enabled. */
export const READING_ACTIONS = ["list", "export"] as const;
/** The actions that change the shelf (off unless the server runs with --enable-mutating-tools). */
export const WRITING_ACTIONS: readonly (typeof ACTIONS)[number][] = ACTIONS.filter((a) =>
  !(READING_ACTIONS as readonly string[]).includes(a)
);
const SECTIONS = ["active", "retracted", "all"] as const;
const FORMATS = ["bibtex", "ris", "json"] as const;

/** Entries in one page of an export: 100 JSON records stay well under the response cap. */
export const EXPORT_PAGE = 100;

const schema = z.object({
  action: z.enum(ACTIONS),
  section: z.enum(SECTIONS).optional().describe("list: active (default), retracted or all"),
  doi: z.string().max(2000).optional().describe(
    "a DOI (or github:owner/repo); remove takes several",
  ),
  score: z.number().int().min(-1000).max(1000).optional().describe("score: a whole number"),
  text: z.string().max(MAX_NOTE).optional().describe("note: the note (empty removes it)"),
  format: z.enum(FORMATS).optional().describe("export: bibtex (default), ris or json"),
  with_retracted: z.boolean().optional().describe("export: include retracted works"),
  page: z.number().int().min(1).optional().describe(`export: page of ${EXPORT_PAGE} (default 1)`),
  data: z.string().optional().describe("import: a JSON export"),
});

/** The schema listed while the writing actions are off: reading actions and their parameters. */
const readingSchema = z.object({
  action: z.enum(READING_ACTIONS, {
    error: (issue) =>
      typeof issue.input === "string" &&
        (WRITING_ACTIONS as readonly string[]).includes(issue.input)
        ? `action '${issue.input}' changes the shelf, and this server keeps such actions off (the person running it turns them on with --enable-mutating-tools); use list or export`
        : `give one of: ${READING_ACTIONS.join(", ")}`,
  }),
  section: schema.shape.section,
  format: schema.shape.format,
  with_retracted: schema.shape.with_retracted,
  page: schema.shape.page,
});

/** Arguments of the tool. */
export type ShelfArgs = z.infer<typeof schema>;

const DESCRIPTION = `The research shelf: works read through the scholarly tools (papers, RFCs,
citable repositories) are tracked here by DOI, versions merged, retracted
works apart. Actions: list (section=); confirm, score, note, remove (doi=);
export format=bibtex|ris|json (page=); import data=<JSON export>; clear.
remove and clear delete for good.`;

const READING_DESCRIPTION = `The research shelf: works read through the scholarly tools (papers,
RFCs, citable repositories) are tracked here by DOI, versions merged,
retracted works apart. Actions: list (section=); export
format=bibtex|ris|json (page=). Confirming, scoring, noting, removing,
importing and clearing are off on this server (the person running it turns
them on with --enable-mutating-tools).`;

function fm(action: (typeof ACTIONS)[number]): Frontmatter {
  return new Frontmatter().set("action", trusted.oneOf(ACTIONS, action));
}

function keyOrFail(doi: string | undefined, action: string): string {
  if (doi === undefined || doi.trim() === "") {
    throw new ToolError(
      `${action} needs doi= (the work's DOI, e.g. 10.48550/arXiv.1706.03762, or github:owner/repo); list the shelf to see them`,
    );
  }
  const key = normalizeKey(doi);
  if (!key) {
    throw new ToolError(
      `'${
        doi.slice(0, 200)
      }' is not a DOI; use the form 10.NNNN/suffix (a doi.org URL or doi: prefix is fine) or github:owner/repo`,
    );
  }
  return key;
}

function notOnShelf(key: string, ctx: ToolContext): ToolError {
  return new ToolError(
    `${key} is not on the shelf (neither as a primary nor as another DOI of a work); call ${
      ctx.toolName("research_shelf") ?? "research_shelf"
    } with action=list section=all to see what is`,
  );
}

function addStatus(front: Frontmatter, status: Trusted | undefined): void {
  if (status) front.set("shelf", status);
}

async function list(args: ShelfArgs, ctx: ToolContext): Promise<ToolResult> {
  const shelf = currentShelf();
  const state = await shelf.snapshot();
  const section = args.section ?? "active";
  const counts = countsOf(state);
  const front = fm("list").set("section", trusted.oneOf(SECTIONS, section))
    .set("active", counts.active).set("confirmed", counts.confirmed)
    .set("retracted", counts.retracted);
  const fences: FencedPart[] = [];
  let structured: Record<string, unknown> | undefined;
  const show = (name: "active" | "retracted", records: ShelfRecord[]) => {
    if (records.length === 0) return;
    const rows = name === "active" ? activeRows(records) : retractedRows(records);
    const rendered = renderRecords(rows, ctx.defaultOutput, {
      columns: name === "active" ? ACTIVE_COLUMNS : RETRACTED_COLUMNS,
      name,
    });
    fences.push({
      content: rendered.text,
      title: name === "active" ? "Active (citable)" : "Retracted (not citable)",
    });
    if (rendered.structured) structured = { ...structured, ...rendered.structured };
  };
  if (section !== "retracted") show("active", byAdded(state.active));
  if (section !== "active") show("retracted", byAdded(state.retracted));
  if (fences.length === 0) {
    front.append(
      "note",
      counts.active + counts.retracted === 0
        ? trusted
          .text`the shelf is empty: papers, RFCs and repositories read one at a time through the scholarly sources are added automatically, or restore a saved shelf with action=import`
        : trusted.text`nothing in the ${trusted.oneOf(SECTIONS, section)} section`,
    );
  } else {
    front.append(
      "hint",
      trusted
        .text`annotate with action=confirm|score|note and doi=; export citations with action=export format=bibtex|ris|json`,
    );
  }
  if (section === "active" && counts.retracted > 0) {
    front.append(
      "note",
      trusted
        .text`${counts.retracted} retracted entries not shown; list them with section=retracted`,
    );
  }
  return ctx.respond({ frontmatter: front, fences, structured });
}

async function exportShelf(args: ShelfArgs, ctx: ToolContext): Promise<ToolResult> {
  const state = await currentShelf().snapshot();
  const format = args.format ?? "bibtex";
  const withRetracted = args.with_retracted === true;
  const active = byAdded(state.active);
  const retracted = byAdded(state.retracted);
  const all = withRetracted ? [...active, ...retracted] : active;
  const pages = Math.max(1, Math.ceil(all.length / EXPORT_PAGE));
  const page = args.page ?? 1;
  if (page > pages) {
    throw new ToolError(
      `page ${page} is past the end: the export has ${pages} page${
        pages === 1 ? "" : "s"
      } of ${EXPORT_PAGE} entries; ask for page=1 to ${pages}`,
    );
  }
  const records = all.slice((page - 1) * EXPORT_PAGE, page * EXPORT_PAGE);
  const front = fm("export").set("format", trusted.oneOf(FORMATS, format))
    .set("entries", records.length).set("with_retracted", withRetracted);
  if (pages > 1) {
    front.set("page", page).set("pages", pages).set("total_entries", all.length);
    if (page < pages) {
      front.set("next_page", page + 1);
      front.append(
        "hint",
        trusted.text`this is page ${page} of ${pages}; export the next with action=export format=${
          trusted.oneOf(FORMATS, format)
        } page=${page + 1}${withRetracted ? trusted.text` with_retracted=true` : trusted.text``}${
          format === "json"
            ? trusted
              .text`; import the pages one after another to restore the whole shelf, or read the resource ${
              trusted.oneOf([SHELF_EXPORT_URI], SHELF_EXPORT_URI)
            } for the whole shelf as one file`
            : trusted.text``
        }`,
      );
    }
  }
  if (!withRetracted && retracted.length > 0) {
    front.append(
      "note",
      trusted
        .text`${retracted.length} retracted entries left out; add with_retracted=true to include them (marked as retracted)`,
    );
  }
  if (records.length === 0) {
    front.append("note", trusted.text`nothing to export: the shelf has no entries to include`);
    return ctx.respond({ frontmatter: front });
  }
  let content: string;
  if (format === "bibtex") {
    content = toBibtex(records);
  } else if (format === "ris") {
    content = toRis(records);
  } else {
    const onPage = new Set(records);
    content = toJson(
      active.filter((r) => onPage.has(r)),
      withRetracted ? retracted.filter((r) => onPage.has(r)) : undefined,
    );
    front.append(
      "hint",
      trusted
        .text`keep this JSON (your memory or a file) and restore it in a later session with action=import data=<the JSON>`,
    );
  }
  if (format !== "json") {
    front.append(
      "hint",
      trusted
        .text`the entries are the fenced lines without their margin; paste them into your bibliography file`,
    );
    const file = SHELF_EXPORT_RESOURCES.find((r) => r.format === format)!;
    front.append(
      "see_also",
      trusted.text`the resource ${
        trusted.oneOf(SHELF_EXPORT_RESOURCES.map((r) => r.uri), file.uri)
      } is every citable entry as the file itself, ready to save`,
    );
  }
  return ctx.respond({
    frontmatter: front,
    // No title line inside the fence: the fenced lines are the file, as is.
    fences: [{ content }],
    readOn: trusted
      .text`the export was cut to fit the size cap; remove entries you do not need (action=remove) and export again`,
  });
}

async function importShelf(args: ShelfArgs, ctx: ToolContext): Promise<ToolResult> {
  if (args.data === undefined || args.data.trim() === "") {
    throw new ToolError(
      "import needs data= with the JSON that action=export format=json produced",
    );
  }
  let summary;
  try {
    summary = await currentShelf().import(args.data);
  } catch (error) {
    if (error instanceof ImportError) {
      throw new ToolError(
        `${error.message}. Pass the JSON exactly as action=export format=json gave it ({"active": {doi: record}, "retracted": {...}}), fixing the fields named`,
      );
    }
    throw error;
  }
  const front = fm("import").set("created", summary.created).set("updated", summary.updated);
  if (summary.created + summary.updated === 0) {
    front.append("note", trusted.text`the data held no records; nothing changed`);
  } else {
    if (summary.retracted > 0) {
      front.set("retracted", summary.retracted);
      front.append(
        "note",
        trusted
          .text`${summary.retracted} imported works are retracted and stay in the retracted bucket`,
      );
    }
    if (summary.updated > 0) {
      front.append(
        "note",
        trusted
          .text`works already on the shelf kept their scores, notes and confirmations; the import filled only what was missing`,
      );
    }
  }
  addStatus(front, currentShelf().status(await currentShelf().snapshot()));
  return ctx.respond({ frontmatter: front });
}

async function handle(args: ShelfArgs, ctx: ToolContext): Promise<ToolResult> {
  const shelf = currentShelf();
  switch (args.action) {
    case "list":
      return await list(args, ctx);
    case "export":
      return await exportShelf(args, ctx);
    case "import":
      return await importShelf(args, ctx);
    case "confirm": {
      const key = keyOrFail(args.doi, "confirm");
      const r = await shelf.confirm(key);
      if (!r) throw notOnShelf(key, ctx);
      const front = fm("confirm").set("doi", shelfKey(r.doi)).set("confirmed", true);
      if (r.retraction) {
        front.append(
          "warning",
          trusted.text`this work is in the retracted bucket; it is not exported as citable`,
        );
      }
      return ctx.respond({ frontmatter: front });
    }
    case "score": {
      const key = keyOrFail(args.doi, "score");
      if (args.score === undefined) {
        throw new ToolError("score needs score= (a whole number, e.g. 8) besides doi=");
      }
      const r = await shelf.score(key, args.score);
      if (!r) throw notOnShelf(key, ctx);
      return ctx.respond({
        frontmatter: fm("score").set("doi", shelfKey(r.doi)).set("score", args.score),
      });
    }
    case "note": {
      const key = keyOrFail(args.doi, "note");
      if (args.text === undefined) {
        throw new ToolError("note needs text= (the note; an empty text removes it) besides doi=");
      }
      const text = args.text.trim() === "" ? null : args.text.trim();
      const r = await shelf.note(key, text);
      if (!r) throw notOnShelf(key, ctx);
      return ctx.respond({
        frontmatter: fm("note").set("doi", shelfKey(r.doi)).set("note_set", text !== null),
      });
    }
    case "remove": {
      if (args.doi === undefined || args.doi.trim() === "") {
        throw new ToolError("remove needs doi= (one DOI, or several separated by commas)");
      }
      const parts = args.doi.split(",").map((s) => s.trim()).filter(Boolean);
      const bad = parts.filter((p) => !normalizeKey(p));
      if (bad.length > 0) {
        throw new ToolError(
          `not a DOI: ${
            bad.slice(0, 3).map((b) => `'${b.slice(0, 100)}'`).join(", ")
          }; use the form 10.NNNN/suffix or github:owner/repo, separated by commas; nothing was removed`,
        );
      }
      const removed = await shelf.remove(parts);
      const front = fm("remove").set("removed", removed.length);
      if (removed.length > 0) front.set("dois", removed.map(shelfKey));
      else front.append("note", trusted.text`none of the given DOIs is on the shelf`);
      addStatus(front, shelf.status(await shelf.snapshot()));
      return ctx.respond({ frontmatter: front });
    }
    case "clear": {
      const count = await shelf.clear();
      return ctx.respond({ frontmatter: fm("clear").set("cleared", count) });
    }
  }
}

/** A shelf key for the frontmatter (a DOI, or a `github:owner/repo` key). */
function shelfKey(key: string): Trusted {
  return key.startsWith("github:")
    ? trusted.matching(key, /^github:[a-z0-9-]+\/[a-z0-9._-]+$/)
    : trusted.doi(key);
}

/** The tool declaration. */
export const researchShelf = defineTool({
  key: "research_shelf",
  names: { desktop: "research_shelf", code: "ResearchShelf" },
  title: "ResearchShelf",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  mutating: {
    actions: WRITING_ACTIONS,
    description: READING_DESCRIPTION,
    inputSchema: readingSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  },
  handler: async (args, ctx) => {
    try {
      return await handle(args, ctx);
    } catch (error) {
      if (error instanceof ShelfTooLargeChange || error instanceof ShelfRecordTooLarge) {
        throw new ToolError(error.message);
      }
      throw error;
    }
  },
});
