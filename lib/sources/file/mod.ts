/**
 * Local files, for the CLI only (the MCP tools never read the file system).
 *
 * @module
 */
import type { Document } from "../../content/document/document.ts";
import { decodeText, detectCharset } from "../../net/charset.ts";
import { ContentError } from "../../errors.ts";
import { toDocument } from "../../content/pipeline.ts";

const TYPES: Record<string, string> = {
  html: "text/html",
  htm: "text/html",
  xhtml: "application/xhtml+xml",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  xml: "application/xml",
  pdf: "application/pdf",
};

/** Reads and converts a local file. */
export async function readFileDocument(
  path: string,
  options: { fullPage?: boolean } = {},
): Promise<Document> {
  const filePath = path.startsWith("file://") ? decodeURIComponent(new URL(path).pathname) : path;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(filePath);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) {
      throw new ContentError(
        `reading ${filePath} needs permission: run with --allow-read=${filePath}`,
      );
    }
    if (error instanceof Deno.errors.NotFound) throw new ContentError(`no such file: ${filePath}`);
    throw new ContentError(`cannot read ${filePath}: ${(error as Error).message}`);
  }
  const ext = (/\.([a-z0-9]+)$/i.exec(filePath)?.[1] ?? "").toLowerCase();
  const contentType = TYPES[ext] ?? "";
  let absolute = filePath;
  try {
    absolute = await Deno.realPath(filePath);
  } catch { /* keep as given */ }
  const url = new URL(`file://${absolute.startsWith("/") ? "" : "/"}${absolute}`).href;
  return await toDocument({
    url,
    contentType,
    bytes,
    text: () => decodeText(bytes, contentType || null).text,
    encoding: () => detectCharset(contentType || null, bytes).encoding,
  }, options);
}
