/**
 * Source files as Documents. (Interface first: the code-outline work fills
 * in definitions as sections; for now the file is one fenced block with
 * line numbers.)
 *
 * @module
 */
import { Document, type DocumentFact } from "./document.ts";
import type { CitationInput } from "../shelf/record.ts";

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

/** Numbers lines from `first`, padded to the widest number. */
export function numberLines(lines: readonly string[], first = 1): string {
  const width = String(first + lines.length - 1).length;
  return lines.map((l, i) => `${String(first + i).padStart(width)}  ${l}`).join("\n");
}

/** A source file as a Document: its lines, numbered, in a fenced block. */
export function codeDocument(file: CodeFile): Promise<Document> {
  const all = file.text.split("\n");
  const from = Math.max(1, file.lines?.from ?? 1);
  const to = Math.min(all.length, file.lines?.to ?? all.length);
  const body = numberLines(all.slice(from - 1, to), from);
  const fence = "`".repeat(
    Math.max(3, ...[...body.matchAll(/`{3,}/g)].map((m) => m[0].length + 1)),
  );
  return Promise.resolve(
    new Document({
      url: file.url,
      kind: "text",
      title: file.title ?? file.path,
      markdown: `${fence}\n${body}\n${fence}`,
      source: file.source,
      facts: file.facts,
      citation: file.citation,
    }),
  );
}
