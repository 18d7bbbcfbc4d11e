/**
 * The Document: the one model every path produces, and every view reads.
 *
 * It holds the Markdown, the section tree (built at once: it is cheap and
 * every view needs it), and the slices and search index (built on first use,
 * so an outline request does not pay for indexing).
 *
 * @module
 */
import type { FrontmatterValue } from "../../trust.ts";
import type { Message } from "../../hint.ts";
import type { CitationInput } from "../../citation.ts";
import { abortable } from "../../abort.ts";
import { freeArrays } from "../../runtime/memory.ts";
import { type AnchorSource, AnchorTable } from "./anchors.ts";
import { SearchIndex } from "../search/bm25.ts";
import { estimateTokens, FEATURE_COUNT, tokenFeatures, weighFeatures } from "../tokens/count.ts";
import { buildSections, type Section, sectionAt } from "./sections.ts";
import { buildSlices, type Slice } from "./slices.ts";
import {
  arrayBytes,
  isWide,
  MAP,
  MAP_ENTRY,
  OBJECT,
  pushedArrayBytes,
  stringBytes,
  typedArrayBytes,
  WORD,
} from "../../runtime/heap.ts";

/** Something that can say how much memory it holds. */
export interface Sized {
  /** Approximate bytes held. */
  approxBytes(): number;
  /** The typed arrays it owns, given back at once when its Document is released. */
  arrays?(): Iterable<ArrayBufferView>;
}

/** What a Document was made from. */
export type DocumentKind = "html" | "markdown" | "text" | "json" | "xml" | "pdf" | "record";

/** The fields a Document is built from. */
export interface DocumentInit {
  /** The URL it was fetched from (or a file URL for local files). */
  url: string;
  /** What it was made from. */
  kind: DocumentKind;
  /** Title ("" when there is none). */
  title: string;
  /** The Markdown body. */
  markdown: string;
  /** Element id to Markdown offset (HTML pages), in page order. */
  anchors?: AnchorSource;
  /** Canonical URL declared by the page. */
  canonicalUrl?: string;
  /** Media type as served. */
  contentType?: string;
  /** Page description. */
  description?: string;
  /** Language tag. */
  lang?: string;
  /** True when the page looks like a JavaScript shell with no content of its own. */
  jsShell?: boolean;
  /** Share of the page's text the furniture filter dropped (0 to 1). */
  droppedShare?: number;
  /** Pages of a PDF. */
  pages?: number;
  /** True when served through a proxy (the address check was advisory). */
  degraded?: boolean;
  /** Trusted frontmatter fields a source computed, in order. */
  facts?: DocumentFact[];
  /** The work this Document describes, for the research shelf. */
  citation?: CitationInput;
  /** Name of the source that made it (`web` for the generic path). */
  source?: string;
}

/**
 * A frontmatter field a source computed (an API name, a status, a link to
 * the full text). Keys of the collecting kind (`hint`, `warning`, `note`,
 * `see_also`, `alert`) are appended; others are set.
 */
export interface DocumentFact {
  /** Frontmatter key. */
  key: string;
  /** Its value: trusted values, numbers and booleans only. */
  value: FrontmatterValue;
  /**
   * A hint or note as data: each face renders it in its own terms (the value
   * holds the MCP wording, for code that reads facts as values).
   */
  message?: Message;
  /** The fact names an MCP tool the other faces do not have: only MCP shows it. */
  mcpOnly?: boolean;
}

/**
 * Parts of a Document computed elsewhere (a conversion worker), so the
 * thread that adopts it does not compute them again. Its strings must not
 * be views of a page's source (strings that came through `postMessage` are
 * copies): they are kept as given.
 */
export interface Prebuilt {
  /** The section tree of the Markdown, as {@link buildSections} makes it. */
  sections: Section[];
  /** Estimated tokens of the whole Markdown. */
  tokens?: number;
  /** The token features of each section's own text ({@link sectionFeatures}). */
  sectionFeatures?: Float64Array;
}

/**
 * The token features (see `tokens.ts`) of each section's own text, section
 * after section in one array of `sections.length × FEATURE_COUNT`. A
 * section starts at a line start, where no run of the estimate crosses, so
 * the features of a run of sections are the sum of theirs (exactly: they
 * are counts), and a subtree's estimate is the estimate of its text.
 */
export function sectionFeatures(
  markdown: string,
  sections: readonly Section[],
): Float64Array<ArrayBuffer> {
  const out = new Float64Array(sections.length * FEATURE_COUNT);
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i];
    tokenFeatures(
      markdown.slice(s.start, s.end),
      out.subarray(i * FEATURE_COUNT, (i + 1) * FEATURE_COUNT),
    );
  }
  return out;
}

/**
 * The Markdown's estimated tokens from its sections' features and its
 * preamble's: the same as `estimateTokens(markdown)`, without reading the
 * sections' text again.
 */
export function tokensFromFeatures(
  markdown: string,
  sections: readonly Section[],
  features: Float64Array,
): number {
  const sum = tokenFeatures(markdown.slice(0, sections[0]?.start ?? markdown.length), scratch());
  for (let k = 0; k < features.length; k++) sum[k % FEATURE_COUNT] += features[k];
  return Math.ceil(weighFeatures(sum));
}

const scratch = () => new Float64Array(FEATURE_COUNT);

/**
 * Indexes built on this thread from a Document's text (search indexes and
 * question indexes), for tests: a page whose indexes came from its
 * conversion worker adds nothing here.
 */
export const indexBuilds = { search: 0, question: 0 };

/** A converted page with its structure. */
export class Document {
  /** The URL it was fetched from. */
  readonly url: string;
  /** What it was made from. */
  readonly kind: DocumentKind;
  /** Title. */
  readonly title: string;
  /** Markdown body. */
  readonly markdown: string;
  /** Element id to offset. */
  readonly anchors: AnchorTable;
  /** Canonical URL. */
  readonly canonicalUrl?: string;
  /** Media type. */
  readonly contentType?: string;
  /** Description. */
  readonly description?: string;
  /** Language. */
  readonly lang?: string;
  /** Looks like a JavaScript shell. */
  readonly jsShell: boolean;
  /** Share of text dropped as furniture. */
  readonly droppedShare: number;
  /** PDF page count. */
  readonly pages?: number;
  /** Fetched through a proxy. */
  readonly degraded: boolean;
  /** Source-computed frontmatter fields. */
  readonly facts: readonly DocumentFact[];
  /** The work it describes, for the shelf. */
  readonly citation?: CitationInput;
  /** The source that made it. */
  readonly source: string;
  /** Sections in document order. */
  readonly sections: Section[];
  #slices?: Slice[];
  #index?: SearchIndex;
  #bySlug?: Map<string, number>;
  #tokens?: number;
  /** Token features of each section's own text, and which are counted (built on first use). */
  #features?: Float64Array;
  #counted?: Uint8Array;
  #memos = new Map<symbol, Sized>();
  /** Bytes of the parts built with the Document (Markdown, sections, anchors). */
  #baseBytes?: number;
  /** Bytes of the slices and the search index, once built (they do not change). */
  #indexBytes?: number;

  /** Builds the document and its section tree (or takes them from `prebuilt`). */
  constructor(init: DocumentInit, prebuilt?: Prebuilt) {
    this.url = init.url;
    this.kind = init.kind;
    // Strings cut from the page's source keep all of it alive (a substring can be a view of
    // its parent): the ones a Document keeps are copied, so a cached page holds no HTML.
    this.title = detach(init.title);
    this.markdown = init.markdown;
    // A table's ids are one new string: none is a view of the page's source.
    this.anchors = AnchorTable.from(init.anchors);
    this.canonicalUrl = detach(init.canonicalUrl);
    this.contentType = detach(init.contentType);
    this.description = detach(init.description);
    this.lang = detach(init.lang);
    this.jsShell = init.jsShell ?? false;
    this.droppedShare = init.droppedShare ?? 0;
    this.pages = init.pages;
    this.degraded = init.degraded ?? false;
    this.facts = init.facts ?? [];
    this.citation = init.citation;
    this.source = init.source ?? "web";
    this.sections = prebuilt?.sections ?? buildSections(this.markdown, this.anchors);
    this.#tokens = prebuilt?.tokens;
    if (prebuilt?.sectionFeatures?.length === this.sections.length * FEATURE_COUNT) {
      this.#features = prebuilt.sectionFeatures;
      this.#counted = new Uint8Array(this.sections.length).fill(1);
    }
  }

  /** The slices (built on first use). */
  get slices(): Slice[] {
    return (this.#slices ??= buildSlices(this.markdown, this.sections));
  }

  /** The search index (built on first use). */
  get index(): SearchIndex {
    if (!this.#index) {
      indexBuilds.search++;
      const slices = this.slices;
      this.#index = new SearchIndex(
        slices.map((s) => this.markdown.slice(s.start, s.end)),
        slices.map((s) => s.ancestry),
        (i) => this.sliceText(i),
      );
    }
    return this.#index;
  }

  /** Whether slices and the index are already built. */
  get indexed(): boolean {
    return this.#index !== undefined;
  }

  #building?: Promise<void>;

  /**
   * Takes slices and a search index built elsewhere (a worker), unless they
   * were built here meanwhile.
   */
  adoptIndex(slices: Slice[], index: SearchIndex): void {
    if (this.#index) return;
    this.#slices = slices;
    this.#index = index;
  }

  /**
   * Notes that the indexes of this Document are being built in the
   * background (`build` settles when they are adopted or given up);
   * {@link ready} waits for it.
   */
  buildingIndexes(build: Promise<void>): void {
    const settled = build.catch(() => {}).finally(() => {
      if (this.#building === settled) this.#building = undefined;
    });
    this.#building = settled;
  }

  /**
   * Settles once no background build of the indexes is under way: a search
   * or a question waits here rather than build them a second time.
   */
  ready(signal?: AbortSignal): Promise<void> {
    return this.#building ? abortable(this.#building, signal) : Promise.resolve();
  }

  /** Whether a background build of the indexes is under way. */
  get building(): boolean {
    return this.#building !== undefined;
  }

  /** Text of slice `i`. */
  sliceText(i: number): string {
    const s = this.slices[i];
    return this.markdown.slice(s.start, s.end);
  }

  /** Text of section `i`: its own text, or its whole subtree. */
  sectionText(i: number, subtree = false): string {
    const s = this.sections[i];
    return this.markdown.slice(s.start, subtree ? s.subtreeEnd : s.end).trim();
  }

  /** Section by slug or by the id of its heading. */
  sectionBySlug(slug: string): number | undefined {
    if (!this.#bySlug) {
      this.#bySlug = new Map();
      for (const s of this.sections) {
        if (s.id !== undefined && !this.#bySlug.has(s.id)) this.#bySlug.set(s.id, s.index);
      }
      for (const s of this.sections) {
        if (!this.#bySlug.has(s.slug)) this.#bySlug.set(s.slug, s.index);
      }
    }
    return this.#bySlug.get(slug);
  }

  /** Estimated tokens of the whole Markdown, counted once per Document. */
  get tokens(): number {
    return this.#tokens ??= estimateTokens(this.markdown);
  }

  /**
   * Estimated tokens of section `i`'s own text (heading included), or of its
   * whole subtree: `estimateTokens` of that text, from features counted
   * once per section (see {@link sectionFeatures}), so an outline of a
   * large page does not read its text again for every window.
   */
  sectionTokens(i: number, subtree = false): number {
    const sections = this.sections;
    this.#features ??= new Float64Array(sections.length * FEATURE_COUNT);
    this.#counted ??= new Uint8Array(sections.length);
    const end = subtree ? sections[i].subtreeEnd : sections[i].end;
    const sum = scratch();
    for (let j = i; j < sections.length && sections[j].start < end; j++) {
      const at = j * FEATURE_COUNT;
      if (!this.#counted[j]) {
        const s = sections[j];
        tokenFeatures(
          this.markdown.slice(s.start, s.end),
          this.#features.subarray(at, at + FEATURE_COUNT),
        );
        this.#counted[j] = 1;
      }
      for (let k = 0; k < FEATURE_COUNT; k++) sum[k] += this.#features[at + k];
    }
    return Math.ceil(weighFeatures(sum));
  }

  /** The section holding the element with `id`, if the page had one. */
  sectionOfAnchor(id: string): number | undefined {
    const offset = this.anchors.get(id);
    if (offset === undefined) return undefined;
    const i = sectionAt(this.sections, offset);
    return i >= 0 ? i : undefined;
  }

  /**
   * A structure derived from the document, built on first use and kept with
   * it (counted in {@link approxBytes}).
   */
  memo<T extends Sized>(key: symbol, build: () => T): T {
    let value = this.#memos.get(key) as T | undefined;
    if (value === undefined) this.#memos.set(key, value = build());
    return value;
  }

  /** Whether {@link memo} has built `key`. */
  hasMemo(key: symbol): boolean {
    return this.#memos.has(key);
  }

  #released = false;

  /** Whether {@link release} was called. */
  get released(): boolean {
    return this.#released;
  }

  /**
   * Gives back at once the memory of the indexes' typed arrays (postings,
   * term tables, token features), which V8 would otherwise hold until its
   * next full collection: the page cache calls it when no entry holds the
   * Document any more. The Document stays usable: what a later call reads is
   * built again on first use. A Document whose indexes are being built in
   * the background is left to the collector: a call may be waiting for them
   * (and since indexes are adopted only while building, none arrives after).
   */
  release(): void {
    if (this.#released || this.building) return;
    this.#released = true;
    const arrays: (ArrayBufferView | undefined)[] = [this.#features, this.#counted];
    if (this.#index) arrays.push(...this.#index.arrays());
    for (const m of this.#memos.values()) arrays.push(...(m.arrays?.() ?? []));
    this.#index = undefined;
    this.#indexBytes = undefined;
    this.#features = undefined;
    this.#counted = undefined;
    this.#memos.clear();
    freeArrays(arrays);
  }

  /**
   * Memory held, in bytes (for the page cache's bound): counted from the
   * structures themselves with the heap model of `heap.ts` (strings, section
   * and slice objects, the anchors, the search index's postings, and every
   * {@link memo}), so the bound holds for small pages, where fixed costs per
   * term and per object dominate, as for large ones. Each part is counted
   * once, when it is built.
   */
  approxBytes(): number {
    let bytes = this.#baseBytes ??= this.#countBase();
    if (this.#index) {
      bytes += this.#indexBytes ??= this.#countSlices() + this.#index.approxBytes();
    }
    for (const m of this.#memos.values()) bytes += m.approxBytes();
    if (this.#bySlug) bytes += MAP + this.#bySlug.size * MAP_ENTRY;
    if (this.#features) {
      bytes += typedArrayBytes(this.#features.byteLength) + typedArrayBytes(this.#counted!.length);
    }
    return bytes;
  }

  #countBase(): number {
    const wide = isWide(this.markdown);
    let bytes = 40 * WORD + stringBytes(this.markdown.length, wide);
    for (const text of [this.url, this.title, this.description, this.canonicalUrl]) {
      if (text) bytes += stringBytes(text.length, wide);
    }
    // A section: an object of thirteen fields, its title, slug and id, its children.
    bytes += pushedArrayBytes(this.sections.length);
    for (const s of this.sections) {
      bytes += OBJECT + 13 * WORD + stringBytes(s.title.length, wide) + stringBytes(s.slug.length);
      if (s.id !== undefined) bytes += stringBytes(s.id.length);
      bytes += s.children.length > 0 ? pushedArrayBytes(s.children.length) : ARRAY_EMPTY;
    }
    bytes += this.anchors.approxBytes();
    for (const f of this.facts) bytes += OBJECT + 4 * WORD + JSON.stringify(f.value ?? "").length;
    return bytes;
  }

  #countSlices(): number {
    const slices = this.#slices ?? [];
    let bytes = pushedArrayBytes(slices.length);
    const seen = new Set<string>();
    for (const s of slices) {
      bytes += OBJECT + 6 * WORD + (s.part ? OBJECT + 2 * WORD : 0);
      // Slices of one section share their heading path.
      if (!seen.has(s.ancestry)) {
        seen.add(s.ancestry);
        bytes += stringBytes(s.ancestry.length, true);
      }
    }
    return bytes;
  }
}

const ARRAY_EMPTY = arrayBytes(0);

/**
 * A copy of `text` that does not share the string it was cut from. (V8 keeps
 * a long substring as a view of its parent; a JSON round trip makes a new
 * flat string.)
 */
function detach<T extends string | undefined>(text: T): T {
  return (text === undefined || text.length < 13 ? text : JSON.parse(JSON.stringify(text))) as T;
}
