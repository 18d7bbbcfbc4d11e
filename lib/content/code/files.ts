/**
 * Source files as Documents, with their definitions as sections.
 *
 * A file in a language with an outline ({@link CODE_LANGUAGES}) becomes:
 * the lines before the first definition (imports, module docstring), then
 * one heading per definition — `## class Loop (lines 10-27) — Runs callbacks
 * in order.`, nested ones a level deeper (`### def run_forever (…)`, down to
 * `######`; deeper ones stay in their parent's text) — each followed by the
 * definition's own lines (up to its first nested definition), numbered, in a
 * fence. Lines between a definition's end and the next heading (blank
 * lines, a closing brace, module-level statements) follow in a second block
 * that says so. So `web_fetch_sections` lists the definitions with their
 * line ranges and docstring lines, slices start at definition boundaries,
 * and `section=` finds a definition by its bare name (`run_forever`), its
 * qualified name (`Loop.run_forever`, the heading's address in outlines) or
 * its heading text (`def run_forever`).
 *
 * Other files, and files that cannot be parsed, are cut into 100-line
 * chunks (`## lines 1-100`) with a note saying why. A line selection
 * (`#L10-L20`) gives those lines only, numbered, without an outline.
 *
 * @module
 */
import { Document, type DocumentFact } from "../document/document.ts";
import type { CitationInput } from "../../citation.ts";
import { trusted } from "../../trust.ts";
import { languageOf } from "./languages.ts";
import { type Definition, flatten, outline, OutlineUnavailable } from "./outline.ts";

/** What a source file Document is built from. */
export interface CodeFile {
  /** URL the file was read from (a blob or raw URL). */
  url: string;
  /** Path inside its repository (its extension picks the language). */
  path: string;
  /** The file's text. */
  text: string;
  /** Lines to keep (1-based, inclusive), from a `#L10-L20` anchor. */
  lines?: { from: number; to: number };
  /** Title (defaults to the path). */
  title?: string;
  /** Source name (`github`, `huggingface`, `web`). */
  source?: string;
  /** Trusted facts. */
  facts?: DocumentFact[];
  /** Citation record, if any. */
  citation?: CitationInput;
}

/** Lines per section when a file has no outline. */
export const CHUNK_LINES = 100;
/** Deepest heading level used for definitions. */
const MAX_LEVEL = 6;
const MAX_NAME = 120;

/** Numbers lines from `first`, padded to the widest number. */
export function numberLines(lines: readonly string[], first = 1): string {
  const width = String(first + lines.length - 1).length;
  return lines.map((l, i) => `${String(first + i).padStart(width)}  ${l}`).join("\n");
}

/** A backtick fence longer than any backtick run in `text` (at least three). */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** A source file as a Document: its definitions as sections, or line chunks. */
export async function codeDocument(file: CodeFile): Promise<Document> {
  const text = file.text.replace(/\r\n?/g, "\n");
  const all = text.split("\n");
  if (all.length > 1 && all[all.length - 1] === "") all.pop();
  const fence = fenceFor(text);
  const facts: DocumentFact[] = [...(file.facts ?? [])];
  const language = languageOf(file.path);
  let markdown: string;
  let anchors: Map<string, number> | undefined;
  if (file.lines) {
    const from = Math.min(all.length, Math.max(1, file.lines.from));
    const to = Math.max(from, Math.min(all.length, file.lines.to));
    markdown = block(all, from, to, fence);
    facts.push({
      key: "note",
      value: trusted
        .text`lines ${from}-${to} of ${all.length}; without the line anchor the file comes with an outline of its definitions`,
    });
  } else if (language) {
    try {
      const defs = await outline(text, language);
      ({ markdown, anchors } = outlineMarkdown(all, defs, fence));
      facts.push({ key: "language", value: trusted.oneOf([language.id], language.id) });
      facts.push({ key: "definitions", value: countHeadings(defs) });
    } catch (error) {
      if (!(error instanceof OutlineUnavailable)) throw error;
      markdown = chunkMarkdown(all, fence);
      facts.push({
        key: "note",
        value: trusted.text`no outline (${
          trusted.echo(error.message, 300)
        }); sections are ${CHUNK_LINES}-line chunks`,
      });
    }
  } else {
    markdown = chunkMarkdown(all, fence);
    facts.push({
      key: "note",
      value: trusted
        .text`no outline for this file type; sections are ${CHUNK_LINES}-line chunks ("lines 1-${CHUNK_LINES}")`,
    });
  }
  return new Document({
    url: file.url,
    kind: "text",
    title: file.title ?? file.path,
    markdown,
    anchors,
    source: file.source,
    facts,
    citation: file.citation,
  });
}

/** Lines `from`..`to` (1-based, inclusive; trailing blank lines dropped), numbered and fenced. */
function block(all: readonly string[], from: number, to: number, fence: string): string {
  while (to > from && all[to - 1].trim() === "") to--;
  return `${fence}\n${numberLines(all.slice(from - 1, to), from)}\n${fence}`;
}

/** Whether lines `from`..`to` hold anything but blank lines. */
function hasText(all: readonly string[], from: number, to: number): boolean {
  for (let i = from; i <= to; i++) if (all[i - 1].trim() !== "") return true;
  return false;
}

/** Headings every {@link CHUNK_LINES} lines. */
function chunkMarkdown(all: readonly string[], fence: string): string {
  const parts: string[] = [];
  for (let from = 1; from <= all.length; from += CHUNK_LINES) {
    const to = Math.min(all.length, from + CHUNK_LINES - 1);
    parts.push(`## lines ${from}-${to}\n\n${block(all, from, to, fence)}`);
  }
  return parts.join("\n\n");
}

/** Text safe for a one-line heading. */
function headingText(s: string, max: number): string {
  // deno-lint-ignore no-control-regex
  const flat = s.replace(/[\u0000-\u001f\u007f\s]+/g, " ").replace(/#+\s*$/, "").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A name in inline code. */
function quoted(name: string): string {
  return `\`${headingText(name, MAX_NAME).replaceAll("`", "'")}\``;
}

/** The heading line of a definition. */
function heading(d: Definition, level: number): string {
  const space = d.keyword.endsWith(".") ? "" : " ";
  const doc = d.doc ? ` — ${headingText(d.doc, 160)}` : "";
  const range = d.startLine === d.endLine
    ? `line ${d.startLine}`
    : `lines ${d.startLine}-${d.endLine}`;
  return `${"#".repeat(level)} ${d.keyword}${space}${
    headingText(d.name, MAX_NAME)
  } (${range})${doc}`;
}

/** Definitions that get a heading: one per starting line, not deeper than `######`. */
function headed(defs: readonly Definition[]): Definition[] {
  const out: Definition[] = [];
  const starts = new Set<number>();
  for (const d of flatten(defs)) {
    // Outline order, which is line order but for a Go method adopted by its type.
    if (d.depth + 2 > MAX_LEVEL || starts.has(d.startLine)) continue;
    out.push(d);
    starts.add(d.startLine);
  }
  return out;
}

function countHeadings(defs: readonly Definition[]): number {
  return headed(defs).length;
}

/**
 * The Markdown of an outlined file, and the names its headings can be
 * addressed by (qualified name first: it becomes the heading's id; a name
 * an earlier heading took stays with that one).
 */
function outlineMarkdown(
  all: readonly string[],
  defs: readonly Definition[],
  fence: string,
): { markdown: string; anchors: Map<string, number> } {
  const list = headed(defs);
  // Each heading holds the lines from its start to the next definition's start in line order,
  // whatever the outline's order (a Go method adopted by its type comes right after the type).
  const byLine = [...list].sort((a, b) => a.startLine - b.startLine);
  const nextStart = new Map<Definition, number>();
  byLine.forEach((d, i) => nextStart.set(d, byLine[i + 1]?.startLine ?? all.length + 1));
  const parts: string[] = [];
  const anchors = new Map<string, number>();
  let offset = 0;
  const push = (part: string) => {
    if (parts.length > 0) offset += 2;
    parts.push(part);
    offset += part.length;
  };
  const firstLine = byLine[0]?.startLine ?? all.length + 1;
  if (firstLine > 1 && hasText(all, 1, firstLine - 1)) push(block(all, 1, firstLine - 1, fence));
  // Enclosing headed definition of each, for the note on trailing lines.
  const enclosing = new Map<Definition, Definition | undefined>();
  const stack: Definition[] = [];
  for (const d of byLine) {
    while (stack.length > 0 && stack[stack.length - 1].endLine < d.startLine) stack.pop();
    enclosing.set(d, stack.at(-1));
    stack.push(d);
  }
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    const next = nextStart.get(d)!;
    const ownEnd = Math.min(d.endLine, next - 1);
    const section = [heading(d, d.depth + 2), "", block(all, d.startLine, ownEnd, fence)];
    if (ownEnd + 1 <= next - 1 && hasText(all, ownEnd + 1, next - 1)) {
      const around = enclosingAt(d, ownEnd + 1, enclosing);
      let last = next - 1;
      while (all[last - 1].trim() === "") last--;
      const range = last === ownEnd + 1 ? `Line ${last} comes` : `Lines ${ownEnd + 1}-${last} come`;
      section.push(
        "",
        `${range} after the end of ${quoted(d.name)}, ${
          around ? `inside ${quoted(around.name)}` : "at the top level"
        }:`,
        "",
        block(all, ownEnd + 1, next - 1, fence),
      );
    }
    const start = offset + (parts.length > 0 ? 2 : 0);
    for (const name of namesOf(d)) if (!anchors.has(name)) anchors.set(name, start);
    push(section.join("\n"));
  }
  return { markdown: parts.join("\n\n"), anchors };
}

/** The innermost headed definition around `line`, starting from `d`'s ancestors. */
function enclosingAt(
  d: Definition,
  line: number,
  enclosing: Map<Definition, Definition | undefined>,
): Definition | undefined {
  let e = enclosing.get(d);
  while (e && e.endLine < line) e = enclosing.get(e);
  return e;
}

/** Names a definition can be addressed by, most specific first. */
function namesOf(d: Definition): string[] {
  const names = [d.qualified, d.qualified.replaceAll("::", "."), d.name];
  const bare = d.name.split(/::|\./).pop();
  if (bare) names.push(bare);
  return [...new Set(names.filter((n) => n !== "" && n.length <= 300))];
}
