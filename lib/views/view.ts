/**
 * The one view function: `view(document, request)` turns a Document and a
 * page request into a structured result (the body, what was returned and
 * what was cut, sections not found with suggestions, paging, facts for the
 * frontmatter, hints as data). The MCP tools, the REST API, the CLI and the
 * library call it and only render its result; nothing here fetches or
 * formats frontmatter.
 *
 * Budgets include everything the view returns: a cut page's section list
 * and the closest names of sections not found are counted inside
 * `max_tokens`.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import { ancestry } from "../content/document/sections.ts";
import {
  ELISION,
  extractForQuery,
  type ExtractOptions,
  QUERY_MAX_TOKENS,
  QUERY_MIN_TOKENS,
  type QueryExtraction,
} from "../content/question/extract.ts";
import {
  bestCount,
  countTokensSync,
  estimateTokens,
  fitToBudgetSync,
  tokenizerLoaded,
} from "../content/tokens/count.ts";
import { bestPieceCount, countPiecesSync } from "../content/tokens/pieces.ts";
import {
  cutToBudget,
  findSections,
  outlineView,
  renderSlices,
  sectionLine,
  type SectionLookup,
  sectionsView,
  sliceCounts,
  sliceEntries,
  type SliceEntry,
} from "../content/document/views.ts";
import { type FrontmatterValue, isTrusted, trusted } from "../trust.ts";
import { sanitizeLabel } from "../envelope/fence.ts";
import {
  callTool,
  hint,
  type Message,
  note,
  p,
  ph,
  readOutline,
  readPage,
  warning,
} from "../hint.ts";
import {
  chooseView,
  DEFAULT_MAX_TOKENS,
  MAX_MAX_TOKENS,
  OUTLINE_WINDOW,
  type OutlineRequest,
  type PageRequest,
  QUERY_DEFAULT_TOKENS,
  type ViewChoice,
  type ViewKind,
} from "./request.ts";

/** A frontmatter fact: a key and a trusted value. */
export type Fact = [key: string, value: FrontmatterValue];

/** A section asked for and not found. */
export interface NotFound {
  /** The name as asked. */
  request: string;
  /** The closest sections' indexes, best first. */
  suggestions: number[];
  /** Not compared with the headings (see `SUGGEST_WORK`). */
  unsearched?: true;
}

/** What a view produced. */
export interface ViewResult {
  /** The view that answered (`outline` for the outline view). */
  kind: ViewKind | "outline";
  /** `ok`, or `not_found` when nothing asked for exists (no section, no slice). */
  status: "ok" | "not_found";
  /** The page text returned (Markdown; page-derived, so untrusted). */
  body: string;
  /** Server-ordered extra page-derived text (closest section names). */
  extra?: { content: string; label: string };
  /** Facts for the frontmatter, in order. */
  facts: Fact[];
  /** Hints, notes and warnings. */
  messages: Message[];
  /** Set when the view had to cut: estimated tokens of the whole and of what was kept. */
  cut?: { totalTokens: number; keptTokens: number };
  /**
   * Tokens of everything returned (body and extra, and the title line shown
   * with a body): real o200k tokens once the face loaded the tokenizer, else
   * estimates. Counted when first read (an answer that does not show it,
   * such as a section over the HTTP API, counts nothing) and then kept.
   */
  returnedTokens: number;
  /** With query: the extraction. */
  extract?: QueryExtraction;
  /** The question or search given. */
  query?: string;
  /** With section: the sections returned. */
  sectionsReturned?: number[];
  /** With section: the names not found. */
  notFound?: NotFound[];
  /** With search: every matching slice, best first. */
  matchedSlices?: number[];
  /** With search or slices: the slices shown. */
  shownSlices?: number[];
  /** With slices: indexes that do not exist. */
  slicesNotFound?: number[];
  /** Slices of the page (search and slices). */
  totalSlices?: number;
  /** With search: parts of the query that were dropped. */
  searchWarnings?: string[];
  /** With the outline: the window shown, and its sections as records. */
  outline?: {
    window: number;
    windows: number;
    clampedFrom?: number;
    first: number;
    size: number;
    entries: OutlineEntry[];
  };
  /** Whether the view built an index (slices, search, question) the cache should count. */
  grewIndex: boolean;
}

/** One section of an outline window, as a record (page-derived titles: untrusted). */
export interface OutlineEntry {
  /** Position in document order. */
  index: number;
  /** The address `section` accepts (`#id` from the page, or the slug). */
  address: string;
  /** Heading text. */
  title: string;
  /** Heading level, 1 to 6. */
  level: number;
  /** Index of the parent section, or -1. */
  parent: number;
  /** Estimated tokens of the section's own text (heading included, subsections not). */
  tokens: number;
  /** Estimated tokens of the section with its subsections. */
  subtree_tokens: number;
  /** Titles of the enclosing sections, outermost first. */
  path: string[];
  /** True when the section has no text of its own. */
  header_only: boolean;
}

/** The sections of an outline window as records. */
function outlineEntries(doc: Document, first: number, size: number): OutlineEntry[] {
  return doc.sections.slice(first, first + size).map((s) => {
    const path: string[] = [];
    for (let p = s.parent; p >= 0; p = doc.sections[p].parent) {
      path.unshift(doc.sections[p].title);
    }
    return {
      index: s.index,
      address: `#${s.id ?? s.slug}`,
      title: s.title,
      level: s.level,
      parent: s.parent,
      tokens: doc.sectionTokens(s.index),
      subtree_tokens: doc.sectionTokens(s.index, true),
      path,
      header_only: s.headerOnly,
    };
  });
}

/** Settings of a face for {@link view}. */
export interface ViewOptions {
  /**
   * The largest body the face can carry, in tokens (the envelope's
   * frontmatter and fence margins need the rest of the response cap).
   */
  cap?: number;
  /**
   * Without `max_tokens`, return the page, sections and slices whole (the
   * HTTP API and the library: programs asked for the text); search and
   * questions keep their defaults.
   */
  wholeByDefault?: boolean;
  /**
   * Options of the question's extraction (an expansion of its terms): for
   * benchmarks that measure a variant through the view; no face sets it.
   */
  extract?: ExtractOptions;
  /** The URL's #fragment. */
  fragment?: string;
  /** Whether the page's source reads the fragment itself. */
  sourceOwnsFragment?: boolean;
  /**
   * Tokens shown with the body that count in its budget; by default the
   * page's title (as a `# title` line), which every face shows with the
   * text (the fence's first line, REST's first line, the JSON `title`).
   */
  reserve?: number;
  /**
   * A line every face shows before the body (where redirects led, in its
   * readable form): counted in the budget too.
   */
  lead?: string;
}

const SECTION_LIST_SHARE = 0.25;

const LIST_HEAD = "\n\n---\n\nSections:\n";

/**
 * The exact check of what goes out: blocks were chosen on the estimate;
 * once the face loaded the tokenizer, `text` (followed by `tail`, which
 * counts in the budget) is trimmed until it fits `budget` real tokens. What
 * fits, as nearly every answer does, is counted from the counts of its
 * lines (`tokens/pieces.ts`), most of them counted before.
 */
function fit(
  text: string,
  budget: number,
  tail = "",
  known?: number,
): { text: string; trimmed: boolean; tokens?: number } {
  if (!tokenizerLoaded() || !Number.isFinite(budget)) return { text: text + tail, trimmed: false };
  // fitToBudgetSync's own test: within the budget (whole, without a tail), the text as it is.
  const limit = tail === "" ? Math.max(0, Math.floor(budget)) : budget;
  // `known`: the real count of `text`, which the view already made.
  const tokens = known !== undefined && tail === "" ? known : countPiecesSync(text + tail);
  if (tokens <= limit) return { text: text + tail, trimmed: false, tokens };
  return fitToBudgetSync(text, budget, tail);
}

/** The real tokens of a view's body, when the view counted them while making it. */
const bodyTokens = new WeakMap<ViewResult, { body: string; tokens: number }>();

/** Sets `r.body` to `f.text`, keeping its count when `f` has one. */
function setBody(r: ViewResult, f: { text: string; tokens?: number }): void {
  r.body = f.text;
  if (f.tokens !== undefined) bodyTokens.set(r, { body: f.text, tokens: f.tokens });
}

/** The real tokens of `r.body` that the view kept, if any. */
function keptCount(r: ViewResult): number | undefined {
  const kept = bodyTokens.get(r);
  return kept?.body === r.body ? kept.tokens : undefined;
}

const MARKDOWN_TOKENS = Symbol("the Markdown's o200k tokens");

/** Real tokens of a Document's whole Markdown, counted once per Document. */
function markdownTokens(doc: Document): number {
  return doc.memo(MARKDOWN_TOKENS, () => ({
    tokens: countTokensSync(doc.markdown),
    approxBytes: () => 32,
  })).tokens;
}

/** Real tokens of a view's text when the tokenizer is loaded (else the estimate). */
function bodyCount(doc: Document, text: string): number {
  if (text === doc.markdown) return tokenizerLoaded() ? markdownTokens(doc) : doc.tokens;
  return bestPieceCount(text);
}

/** The section list that follows a cut page, within `budget` tokens ("" when none fits). */
function sectionList(doc: Document, budget: number): string {
  const minLevel = doc.sections.reduce((m, s) => Math.min(m, s.level), 6);
  const lines: string[] = [];
  let used = estimateTokens(LIST_HEAD) + 12;
  for (const s of doc.sections) {
    const line = sectionLine(doc, s.index, minLevel);
    const cost = estimateTokens(line) + 1;
    if (used + cost > budget) break;
    lines.push(line);
    used += cost;
  }
  if (lines.length === 0) return "";
  const rest = doc.sections.length - lines.length;
  if (rest > 0) lines.push(`(… ${rest} more sections in the outline)`);
  return lines.join("\n");
}

function base(kind: ViewResult["kind"]): ViewResult {
  return {
    kind,
    status: "ok",
    body: "",
    facts: [],
    messages: [],
    returnedTokens: 0,
    grewIndex: false,
  };
}

/** The page from the top within `budget`, its section list inside the budget when cut. */
function pageBody(
  doc: Document,
  budget: number,
): { text: string; cut?: { totalTokens: number; keptTokens: number }; listed: boolean } {
  const total = doc.tokens;
  // Exact once the face loaded the tokenizer: the estimate can be a fifth off either way,
  // so a page it puts near the budget is counted.
  const exact = tokenizerLoaded() && Number.isFinite(budget);
  const fits = exact
    ? total < budget / 2 || (total <= budget * 2 && markdownTokens(doc) <= budget)
    : total <= budget;
  if (fits) return { text: doc.markdown, listed: false };
  let list = "";
  if (doc.sections.length > 0) {
    list = sectionList(doc, Math.floor(budget * SECTION_LIST_SHARE));
  }
  const tail = list ? LIST_HEAD + list : "";
  const c = cutToBudget(doc.markdown, Math.max(1, budget - bestPieceCount(tail)), total, exact);
  const f = fit(c.text, budget, tail);
  return {
    text: f.text,
    cut: {
      totalTokens: total,
      keptTokens: bestPieceCount(f.text.slice(0, f.text.length - tail.length)),
    },
    listed: list !== "",
  };
}

function pageView(doc: Document, budget: number): ViewResult {
  const r = base("page");
  const b = pageBody(doc, budget);
  r.body = b.text;
  r.facts.push(["total_sections", doc.sections.length]);
  if (b.cut) {
    r.cut = b.cut;
    r.facts.push(["truncated", true], ["total_tokens", b.cut.totalTokens]);
    r.messages.push(
      b.listed
        ? hint`the page was cut at ~${b.cut.keptTokens} of ~${b.cut.totalTokens} tokens; its sections are listed at the end: read one with ${
          readPage({ section: ph("name or #id") })
        }, or search it with ${readPage({ search: ph("words") })}`
        : doc.sections.length > 0
        ? hint`the page was cut at ~${b.cut.keptTokens} of ~${b.cut.totalTokens} tokens; see its sections with ${readOutline()}, or search it with ${
          readPage({ search: ph("words") })
        }`
        : hint`the page was cut at ~${b.cut.keptTokens} of ~${b.cut.totalTokens} tokens; search it with ${
          readPage({ search: ph("words") })
        }, or raise the budget with ${
          readPage({ max_tokens: Math.min(MAX_MAX_TOKENS, budget * 2) })
        }`,
    );
  }
  return r;
}

/** Most requests of the extraction for one answer (the first included). */
const REFINE_ROUNDS = 8;
/** Share of the budget an answer fills before it is measured and asked again. */
const REFINE_FILL = 0.9;
/** Share of the budget a corrected request aims at. */
const REFINE_AIM = 0.96;

/**
 * The extraction for `question` within `budget` real tokens. The extraction
 * chooses its parts on the token estimate, which can be a fifth off either
 * way in some scripts, and it takes whole parts, so what it returns for a
 * budget moves in steps; once the face loaded the tokenizer, its answer is
 * measured, and while it passes the budget or fills less than
 * {@link REFINE_FILL} of it, the extraction is asked again with its budget
 * scaled by what the answer measured, kept between the largest request that
 * fitted and the smallest that did not (halving that interval when the
 * scaled request falls outside it). The fullest answer within the budget is
 * kept; when none fits, the first, which the final check cuts. Returns the
 * answer and, when it was measured, its real count (`tokens`), which the
 * final check and the returned count take rather than count it again.
 */
function extractWithin(
  doc: Document,
  question: string,
  budget: number,
  options: ExtractOptions | undefined,
): { x: QueryExtraction; tokens?: number } {
  const limit = Math.min(budget, QUERY_MAX_TOKENS);
  const first = extractForQuery(doc, question, limit, options);
  if (!tokenizerLoaded() || !first.extracted || first.overBudget || !Number.isFinite(budget)) {
    return { x: first };
  }
  let best: QueryExtraction | undefined;
  let bestReal = -1;
  let firstReal: number | undefined;
  let lo = 0; // largest request whose answer fitted
  let hi = Infinity; // smallest request whose answer did not
  let asked = limit;
  let x = first;
  for (let round = 1;; round++) {
    // The answers of one question share most of their lines: each line is counted once.
    const real = countPiecesSync(x.text);
    if (round === 1) firstReal = real;
    const fitted = x.extracted && !x.overBudget && real <= budget;
    if (fitted && real > bestReal) [best, bestReal] = [x, real];
    if (fitted) lo = Math.max(lo, asked);
    else hi = Math.min(hi, asked);
    if ((fitted && real >= budget * REFINE_FILL) || round >= REFINE_ROUNDS) break;
    let next = x.extracted
      ? Math.round(asked * (budget * REFINE_AIM) / Math.max(1, real))
      : Math.round(asked * 0.8);
    const margin = Math.max(2, asked * 0.02);
    if (next <= lo + margin || next >= hi - margin) {
      next = Math.round(Number.isFinite(hi) ? (lo + hi) / 2 : Math.max(next, asked * 1.5));
    }
    next = Math.min(QUERY_MAX_TOKENS, Math.max(QUERY_MIN_TOKENS, next));
    if (next <= lo || next >= hi || hi - lo <= margin) break;
    asked = next;
    x = extractForQuery(doc, question, next, options);
  }
  return best ? { x: best, tokens: bestReal } : { x: first, tokens: firstReal };
}

function queryView(
  doc: Document,
  question: string,
  budget: number,
  wholeWhenNoMatch: number | undefined,
  extract: ExtractOptions | undefined,
): ViewResult {
  const r = base("query");
  const { x, tokens } = extractWithin(doc, question, budget, extract);
  r.grewIndex = true;
  r.extract = x;
  r.query = question;
  r.facts.push(["query", trusted.echo(question, 300)]);
  r.facts.push(["extracted", x.extracted]);
  if (x.confidence !== null) {
    r.facts.push(["extract_confidence", trusted.oneOf(["high", "medium", "low"], x.confidence)]);
  }
  r.facts.push(["sections_selected", x.sectionsSelected], ["original_tokens", x.originalTokens]);
  r.facts.push(["total_sections", doc.sections.length]);
  r.body = x.text;
  if (!x.extracted && x.confidence === null) {
    r.messages.push(
      note`the page is short (~${x.originalTokens} tokens, within 1.25 × the budget or 800), so it is returned whole`,
    );
  } else if (!x.extracted) {
    // No match: the page from the top, within the same budget (or whole, for a face that returns
    // whole pages by default: programs asked for the text, as PullMD answers).
    const b = pageBody(doc, wholeWhenNoMatch ?? budget);
    r.body = b.text;
    if (b.cut) {
      r.cut = b.cut;
      r.facts.push(["truncated", true]);
    }
    r.messages.push(
      b.cut
        ? note`no part of the page matched the question, so this is the page from the top, cut at ~${b.cut.keptTokens} tokens, not an extract`
        : note`no part of the page matched the question, so this is the whole page, not an extract`,
    );
    r.messages.push(
      hint`ask again with words the page would use, or scout its outline with ${readOutline()}`,
    );
  } else {
    // The budget holds even for one block larger than it: cut, with the way to read it whole.
    const fitted = fit(x.text, budget, "", tokens);
    setBody(r, fitted);
    if (x.overBudget || fitted.trimmed) {
      r.messages.push(
        note`the best passage is one block (code, table, list or quote) larger than the budget, cut to fit it; read it whole with ${
          readPage({ section: ph("heading") })
        } or a larger ${p("max_tokens")}`,
      );
    }
    if (x.confidence === "medium") {
      r.messages.push(
        hint`the best section covers less than half of the question's words: check the answer, or rephrase with the page's own terms`,
      );
    }
    r.messages.push(
      hint`text left out is marked ${ELISION}; read a whole section with ${
        readPage({ section: ph("heading") })
      }, or find exact words with ${readPage({ search: ph("words") })}`,
    );
  }
  return r;
}

/**
 * A search that found nothing in a record (a paper's or an RFC's metadata and
 * abstract): the words may well be in the work itself, which the record only
 * links to. Points at the full text (the source's `full_text` fact) when the
 * record has one.
 */
function recordSearchHint(doc: Document, query: string): Message[] {
  const full = doc.facts.find((f) => f.key === "full_text")?.value;
  const url = isTrusted(full) ? full.toString() : undefined;
  if (url) {
    return [
      hint`no slice matched: this page is the record (metadata and abstract), not the full text; the full text is at ${url}: search it there with ${
        p("search", query.slice(0, 200))
      }`,
    ];
  }
  const out = [
    hint`no slice matched: this page is the record (metadata and abstract), not the full text, and the source links no full text to search; try other words`,
  ];
  // An arXiv paper without an HTML full text: Semantic Scholar searches passages of its body,
  // as parkour-mcp points there (shown only where that tool is on).
  const arxiv = doc.facts.find((f) => f.key === "arxiv_id")?.value;
  const id = isTrusted(arxiv) ? /^(.+?)(?:v\d+)?$/.exec(arxiv.toString())?.[1] : undefined;
  if (id) {
    out.push(
      hint`passages of its body text that match: ${
        callTool("semantic_scholar", {
          action: "snippets",
          query: query.slice(0, 200),
          paper_id: `ARXIV:${id}`,
        })
      }`,
    );
  }
  return out;
}

/** The sections each ambiguous name could be: outline line and parent headings. */
function ambiguousText(doc: Document, lookups: SectionLookup[]): string {
  const lines: string[] = [];
  for (const l of lookups) {
    lines.push(`"${l.request.slice(0, 200)}" names ${l.ambiguous!.length} sections:`);
    for (const i of l.ambiguous!) {
      const path = ancestry(doc.sections, i).join(" > ");
      const s = doc.sections[i];
      lines.push(`  - ${path} (#${s.id ?? s.slug})${i === l.index ? " [returned]" : ""}`);
    }
  }
  return lines.join("\n");
}

function notFoundText(doc: Document, missing: NotFound[]): string {
  const minLevel = doc.sections.reduce((m, s) => Math.min(m, s.level), 6);
  const lines: string[] = [];
  for (const m of missing) {
    lines.push(`Closest matches for "${m.request.slice(0, 200)}":`);
    if (m.unsearched) {
      lines.push("  (not compared: the closest headings are found for the first names)");
    } else if (m.suggestions.length === 0) lines.push("  (none)");
    for (const i of m.suggestions) lines.push("  " + sectionLine(doc, i, minLevel).trimStart());
  }
  return lines.join("\n");
}

function sectionView(
  doc: Document,
  v: Extract<ViewChoice, { kind: "section" }>,
  budget: number,
): ViewResult {
  const r = base("section");
  const lookups = findSections(doc, v.names);
  const found = lookups.filter((l) => l.index !== undefined).map((l) => l.index!);
  const missing = lookups.filter((l) => l.index === undefined).map((l): NotFound => ({
    request: l.request,
    suggestions: l.suggestions,
    ...(l.unsearched ? { unsearched: true } : {}),
  }));
  const ambiguous = lookups.filter((l) => l.ambiguous !== undefined);
  r.facts.push(["total_sections", doc.sections.length]);
  let room = budget;
  if (missing.length > 0 || ambiguous.length > 0) {
    r.notFound = missing.length > 0 ? missing : undefined;
    const content = [
      ...(missing.length > 0 ? [notFoundText(doc, missing)] : []),
      ...(ambiguous.length > 0 ? [ambiguousText(doc, ambiguous)] : []),
    ].join("\n");
    r.extra = {
      content,
      label: missing.length > 0
        ? "untrusted content: closest section names"
        : "untrusted content: sections of the same name",
    };
    room -= bestPieceCount(content);
  }
  if (ambiguous.length > 0) {
    r.facts.push(["sections_ambiguous", ambiguous.map((l) => trusted.echo(l.request, 120))]);
    r.messages.push(
      note`${ambiguous.length} requested name(s) match several headings; the first of each was returned, and the fenced list names every one with its id and parents: ask for another by id or heading path with ${
        readPage({ section: ph("#id or Parent > Name") })
      }`,
    );
  }
  if (found.length > 0) {
    const sv = sectionsView(doc, found, v.autoExpand);
    r.sectionsReturned = sv.returned;
    r.facts.push(["sections_returned", sv.returned.length]);
    // Without a budget (the HTTP API's whole sections) there is nothing to cut or count.
    const c = Number.isFinite(room)
      ? cutToBudget(sv.text, Math.max(1, room), undefined, tokenizerLoaded())
      : { text: sv.text, truncated: false, totalTokens: 0, keptTokens: 0 };
    const f = fit(c.text, Math.max(1, room));
    r.body = f.text;
    if (c.truncated || f.trimmed) {
      r.cut = { totalTokens: c.totalTokens, keptTokens: c.keptTokens };
      r.facts.push(["truncated", true], ["total_tokens", c.totalTokens]);
      r.messages.push(
        hint`the sections were cut at ~${c.keptTokens} tokens; raise the budget with ${
          readPage({ max_tokens: Math.min(MAX_MAX_TOKENS, budget * 2) })
        } or request fewer, smaller sections`,
      );
    }
    if (sv.withChildren.length > 0) {
      r.messages.push(
        note`returned each heading's own text only; its subsections are separate: request them by name, or include everything under the heading with ${
          readPage({ auto_expand: true })
        }`,
      );
    }
    if (sv.absorbed.length > 0) {
      r.messages.push(
        note`${sv.absorbed.length} requested section(s) were already inside a broader one returned with auto_expand`,
      );
    }
    if (sv.dividers.length > 0) {
      r.messages.push(
        note`${sv.dividers.length} returned section(s) have no text of their own (heading-only dividers); find the sections under them with ${readOutline()}, or use ${
          readPage({ auto_expand: true })
        }`,
      );
    }
  } else r.status = "not_found";
  if (missing.length > 0) {
    r.facts.push(["sections_not_found", missing.map((m) => trusted.echo(m.request, 120))]);
    r.messages.push(
      hint`some sections were not found; the closest headings are listed in the fenced text, or see the full outline with ${readOutline()}`,
    );
  }
  return r;
}

/**
 * Says that slices were shown in part (the view is then cut: `truncated`,
 * with the estimate of the slices whole) and how to read one whole.
 */
function windowedNote(
  r: ViewResult,
  doc: Document,
  windowed: number[],
  entries: readonly SliceEntry[],
  budget: number,
  part: string,
): void {
  if (windowed.length === 0) return;
  // Estimates of whole slices, kept with the page's slice counts.
  const counts = sliceCounts(doc);
  const estimate = (e: SliceEntry) => counts.get(e.index, "estimate", () => estimateTokens(e.text));
  const whole = entries.filter((e) => r.shownSlices?.includes(e.index));
  const totalTokens = whole.reduce((sum, e) => sum + estimate(e), 0);
  r.cut = { totalTokens, keptTokens: keptCount(r) ?? bestPieceCount(r.body) };
  r.facts.push(["truncated", true]);
  const i = windowed[0];
  const windowedEntry = entries.find((e) => e.index === i);
  const size = windowedEntry ? estimate(windowedEntry) : 0;
  r.messages.push(
    note`slice ${i} is longer than the budget, so only ${part} is shown, its cuts marked ${ELISION}; read it whole with ${
      readPage({
        slices: String(i),
        max_tokens: Math.min(MAX_MAX_TOKENS, Math.max(budget * 2, size + 100)),
      })
    }`,
  );
}

function searchView(doc: Document, query: string, budget: number): ViewResult {
  const r = base("search");
  const outcome = doc.index.search(query);
  r.grewIndex = true;
  r.query = query;
  r.totalSlices = doc.slices.length;
  r.searchWarnings = outcome.warnings;
  r.facts.push(["total_slices", doc.slices.length], ["search", trusted.echo(query, 300)]);
  for (const w of outcome.warnings) {
    r.messages.push(warning`search: ${trusted.echo(w, 200).toString()}`);
  }
  r.matchedSlices = outcome.hits.map((h) => h.index);
  if (outcome.hits.length === 0) {
    r.facts.push(["matched_slices", trusted.text`none`]);
    r.messages.push(
      ...(outcome.empty
        ? [hint`the query had no searchable terms; give words that appear on the page`]
        : doc.kind === "record"
        ? recordSearchHint(doc, query)
        : [
          hint`no slice matched; try fewer words, other spellings (no stemming: 'parse' does not find 'parsing'), or fuzzy terms like word~`,
        ]),
    );
    return r;
  }
  const entries = sliceEntries(doc, r.matchedSlices);
  const rendered = renderSlices(entries, budget, {
    query,
    exact: tokenizerLoaded(),
    counts: sliceCounts(doc),
  });
  setBody(r, fit(rendered.text, budget, "", rendered.tokens));
  r.shownSlices = rendered.shown;
  r.facts.push(["matched_slices", r.matchedSlices]);
  windowedNote(r, doc, rendered.windowed, entries, budget, "the part around its match");
  if (rendered.shown.length < outcome.hits.length) {
    r.facts.push(["shown_slices", rendered.shown.length]);
    r.messages.push(
      hint`showing the best ${rendered.shown.length} of ${outcome.hits.length} matching slices within the budget; read others with ${
        readPage({ slices: ph("N,M") })
      }`,
    );
  } else {
    r.messages.push(
      hint`read neighbouring slices with ${readPage({ slices: ph("N,M") })} to see more context`,
    );
  }
  return r;
}

function slicesView(doc: Document, requested: number[], budget: number): ViewResult {
  const r = base("slices");
  const total = doc.slices.length;
  r.grewIndex = true;
  r.totalSlices = total;
  r.facts.push(["total_slices", total]);
  const resolved = requested.map((i) => (i < 0 ? total + i : i));
  const valid = [...new Set(resolved.filter((i) => i >= 0 && i < total))];
  const invalid = requested.filter((_, k) => resolved[k] < 0 || resolved[k] >= total);
  if (invalid.length > 0) {
    r.slicesNotFound = invalid;
    r.facts.push(["slices_not_found", invalid]);
    r.messages.push(
      hint`valid slice indexes are 0 to ${
        Math.max(0, total - 1)
      } (or -1 to -${total} from the end)`,
    );
  }
  if (valid.length === 0) {
    r.status = "not_found";
    return r;
  }
  const entries = sliceEntries(doc, valid);
  const rendered = renderSlices(entries, budget, {
    exact: tokenizerLoaded(),
    counts: sliceCounts(doc),
  });
  setBody(r, fit(rendered.text, budget, "", rendered.tokens));
  r.shownSlices = rendered.shown;
  r.facts.push(["slices", rendered.shown]);
  windowedNote(r, doc, rendered.windowed, entries, budget, "its beginning");
  r.messages.push(
    rendered.shown.length < valid.length
      ? hint`only ${rendered.shown.length} of ${valid.length} slices fit the budget; request the rest separately`
      : hint`use ${readPage({ search: ph("words") })} for keyword search, or ${
        readPage({ slices: ph("N,M") })
      } with adjacent indexes for more context`,
  );
  return r;
}

/** A page title as the fence shows it: one line of plain text, or undefined when empty. */
export function fenceTitle(title?: string): string | undefined {
  const flat = title ? sanitizeLabel(title) : "";
  return flat || undefined;
}

/** A heading's text for comparing titles: one line, no case, no closing hashes. */
const headingKey = (text: string) => sanitizeLabel(text.replace(/\s+#+\s*$/, "")).toLowerCase();

/**
 * The title line a view's body is shown under (`# <title>`, as PullMD starts
 * every answer: a section, a search hit or a question's answer says which
 * page it comes from), or undefined when the body opens with that title
 * already (the whole page under its own heading, or a title that is that
 * heading and the site's name) or the page has none. The view counts the
 * line in the budget, and in `returned_tokens` when it is shown.
 */
export function bodyTitle(body: string, title?: string): string | undefined {
  const line = fenceTitle(title);
  if (!line || body === "") return undefined;
  const first = /^# +(.+)$/.exec(body.split("\n", 1)[0]);
  if (first) {
    const heading = headingKey(first[1]);
    const key = headingKey(line);
    if (heading === key || (heading.length > 0 && key.startsWith(heading))) return undefined;
  }
  return line;
}

/**
 * The view a page request asks for, on `doc`. Throws a `RequestError` for
 * a request that names conflicting views.
 */
export function view(doc: Document, req: PageRequest, options: ViewOptions = {}): ViewResult {
  const chosen = chooseView(req, options.fragment, options.sourceOwnsFragment);
  const cap = options.cap ?? Infinity;
  const v = chosen.view;
  const asked = req.max_tokens;
  const whole = options.wholeByDefault && v.kind !== "query" && v.kind !== "search";
  const title = doc.title ? sanitizeLabel(doc.title) : "";
  const titleTokens = options.reserve ?? (title ? bestCount(`# ${title}\n\n`) : 0);
  const reserve = titleTokens +
    (options.lead ? bestCount(`${options.lead}\n\n`) : 0);
  const budget = Math.max(
    1,
    Math.min(
      cap,
      asked ??
        (v.kind === "query" ? QUERY_DEFAULT_TOKENS : whole ? Infinity : DEFAULT_MAX_TOKENS),
    ) - reserve,
  );
  let r: ViewResult;
  switch (v.kind) {
    case "page":
      r = pageView(doc, budget);
      break;
    case "query":
      r = queryView(
        doc,
        v.query,
        budget,
        options.wholeByDefault ? cap - reserve : undefined,
        options.extract,
      );
      break;
    case "section":
      r = sectionView(doc, v, budget);
      break;
    case "search":
      r = searchView(doc, v.query, budget);
      break;
    case "slices":
      r = slicesView(doc, v.indexes, budget);
      break;
  }
  for (const w of chosen.warnings) r.messages.unshift(warning`${w}`);
  const { body, extra } = r;
  const known = keptCount(r);
  countWhenRead(
    r,
    () =>
      (known ?? bodyCount(doc, body)) + (extra ? bestPieceCount(extra.content) : 0) +
      // The title line counts where it is shown: not when the text opens with that heading.
      (body ? reserve - (bodyTitle(body, doc.title) ? 0 : titleTokens) : 0),
  );
  if (r.cut || r.extra || v.kind === "query") r.facts.push(["returned_tokens", r.returnedTokens]);
  return r;
}

/** The outline view: a window of the section tree with each section's address. */
export function outline(
  doc: Document,
  req: Pick<OutlineRequest, "slice">,
  options: { fragment?: string; window?: number } = {},
): ViewResult {
  const r = base("outline");
  r.facts.push(["total_sections", doc.sections.length]);
  if (doc.sections.length === 0) {
    r.messages.push(
      hint`the page has no headings; read it with ${readPage()}, or search it with ${
        readPage({ search: ph("words") })
      }`,
    );
    return r;
  }
  const size = options.window ?? OUTLINE_WINDOW;
  const o = outlineView(doc, req.slice ?? 0, size);
  r.outline = {
    window: o.window,
    windows: o.windows,
    clampedFrom: o.clampedFrom,
    first: o.first,
    size,
    entries: outlineEntries(doc, o.first, size),
  };
  if (o.windows > 1) r.facts.push(["slice", o.window], ["total_slices", o.windows]);
  if (o.clampedFrom !== undefined) {
    r.messages.push(
      note`slice ${o.clampedFrom} is out of range and was clamped to ${o.window} (valid: 0 to ${
        o.windows - 1
      }, or -1 to -${o.windows})`,
    );
  }
  if (options.fragment !== undefined) {
    const [lookup] = findSections(doc, [options.fragment]);
    if (lookup.index === undefined) {
      r.facts.push(["sections_not_found", [trusted.echo(options.fragment, 120)]]);
    } else r.facts.push(["fragment_section", lookup.index]);
  }
  r.body = o.lines.join("\n");
  const read = readPage({ section: ph("name or #id") });
  r.messages.push(
    o.window < o.windows - 1
      ? hint`read a section: ${read}; more sections follow: the next window is ${
        readOutline({ slice: o.window + 1 })
      }, the last ${readOutline({ slice: -1 })}`
      : hint`read a section: ${read}`,
  );
  const body = r.body;
  countWhenRead(r, () => bestPieceCount(body));
  return r;
}

/** Makes `r.returnedTokens` the value of `count`, counted when first read. */
function countWhenRead(r: ViewResult, count: () => number): void {
  let tokens: number | undefined;
  Object.defineProperty(r, "returnedTokens", {
    get: () => tokens ??= count(),
    set: (value: number) => tokens = value,
    enumerable: true,
    configurable: true,
  });
}

/** The hint for a page that is an empty JavaScript shell. */
export function shellHint(): Message {
  return hint`this page builds its content with JavaScript and has none of its own; retry with ${
    readPage({ requires_js: true })
  }`;
}

/** The note for a page whose main-content extraction left much out. */
export function droppedNote(percent: number): Message {
  return note`main-content extraction left out ${percent}% of the page's text (menus, sidebars, related links, comments); get the whole page with ${
    readPage({ full_page: true })
  }`;
}
