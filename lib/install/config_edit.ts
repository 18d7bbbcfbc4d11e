/**
 * Editing MCP client configuration files in place: one server entry is set,
 * everything else (other servers, settings, comments, formatting) is kept.
 * JSON files may hold comments and trailing commas (JSONC); Codex's TOML is
 * edited as text and checked by parsing before and after. Files are written
 * atomically with a backup of the previous content.
 *
 * @module
 */
import { applyEdits, modify, parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { parentDir } from "./launch.ts";
import { type ClientEntry, MANAGED_ENV } from "./targets.ts";

/** A configuration file that cannot be edited safely; the message names the file and place. */
export class ConfigFileError extends Error {
  /** Creates the error; the message is shown to the user as is. */
  constructor(message: string) {
    super(message);
    this.name = "ConfigFileError";
  }
}

/** The outcome of an edit. */
export interface EditResult {
  /** The new text of the file. */
  text: string;
  /** Whether it differs from the old entry (false: nothing to write). */
  changed: boolean;
  /** The entry as written. */
  entry: Record<string, unknown>;
  /** The entry as it reads in the file's language (for `--dry-run`). */
  snippet: string;
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}

/** Structural equality of JSON/TOML values (object key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || b instanceof Date) return String(a) === String(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => sameValue(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length &&
      ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return false;
}

/**
 * The entry to write: the fields install owns replace the old ones, fields
 * the user added (auto-approve lists, timeouts, ...) stay, and environment
 * variables the user added stay beside the launch line's own.
 */
export function mergeEntry(
  existing: unknown,
  entry: ClientEntry,
  env: Record<string, string>,
): Obj {
  const old = isObject(existing) ? existing : {};
  const oldEnv = isObject(old[entry.envKey]) ? old[entry.envKey] as Obj : {};
  const kept = Object.entries(oldEnv).filter(([k]) => !MANAGED_ENV.includes(k));
  const newEnv = { ...Object.fromEntries(kept), ...env };
  const merged: Obj = { ...old, ...entry.fields };
  if (Object.keys(newEnv).length > 0) merged[entry.envKey] = newEnv;
  else delete merged[entry.envKey];
  return merged;
}

function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

const FIX = "fix the file (or move it away), then run install again";

function describe(value: unknown): string {
  return Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
}

/**
 * Sets `root[name]` in a JSON (or JSONC) document to the merged entry,
 * keeping comments and the rest of the text. A missing or blank document
 * starts from `{}`. Throws {@link ConfigFileError} for a malformed file.
 */
export function editJson(
  text: string | undefined,
  file: string,
  rootKey: string,
  name: string,
  entry: ClientEntry,
  env: Record<string, string>,
): EditResult {
  const source = text === undefined || text.trim() === "" ? "{}\n" : text;
  const doc = parseJsonObject(source, file);
  const servers = doc[rootKey];
  if (servers !== undefined && !isObject(servers)) {
    throw new ConfigFileError(
      `${file}: "${rootKey}" is ${describe(servers)}, not an object of servers; ${FIX}`,
    );
  }
  const existing = servers?.[name];
  const merged = mergeEntry(existing, entry, env);
  const snippet = `"${rootKey}": {\n  ${JSON.stringify(name)}: ${
    JSON.stringify(merged, null, 2).replaceAll("\n", "\n  ")
  }\n}`;
  if (existing !== undefined && sameValue(existing, merged)) {
    return { text: source, changed: false, entry: merged, snippet };
  }
  const indent = source.match(/^([ \t]+)["}\]]/m)?.[1];
  const eol = source.includes("\r\n") ? "\r\n" : "\n";
  const edits = modify(source, [rootKey, name], merged, {
    formattingOptions: {
      insertSpaces: !indent?.startsWith("\t"),
      tabSize: indent && !indent.startsWith("\t") ? Math.min(indent.length, 8) : 2,
      eol,
    },
  });
  let out = applyEdits(source, edits);
  if (!out.endsWith("\n")) out += eol;
  return { text: out, changed: true, entry: merged, snippet };
}

/** Reads a TOML dotted key (`mcp_servers."my server"`) into its parts. */
export function tomlKeyPath(key: string): string[] | undefined {
  const parts: string[] = [];
  let i = 0;
  const skip = () => {
    while (key[i] === " " || key[i] === "\t") i++;
  };
  while (true) {
    skip();
    if (key[i] === '"') {
      let j = i + 1;
      while (j < key.length && key[j] !== '"') j += key[j] === "\\" ? 2 : 1;
      if (j >= key.length) return undefined;
      try {
        parts.push(JSON.parse(key.slice(i, j + 1)));
      } catch {
        return undefined;
      }
      i = j + 1;
    } else if (key[i] === "'") {
      const j = key.indexOf("'", i + 1);
      if (j < 0) return undefined;
      parts.push(key.slice(i + 1, j));
      i = j + 1;
    } else {
      const bare = key.slice(i).match(/^[A-Za-z0-9_-]+/);
      if (!bare) return undefined;
      parts.push(bare[0]);
      i += bare[0].length;
    }
    skip();
    if (i >= key.length) return parts;
    if (key[i] !== ".") return undefined;
    i++;
  }
}

interface Header {
  line: number;
  path: string[] | undefined;
}

/** Table headers (`[a.b]`, `[[a.b]]`) outside multi-line strings. */
function tomlHeaders(lines: string[]): Header[] {
  const headers: Header[] = [];
  let open: string | null = null;
  lines.forEach((line, index) => {
    if (open === null) {
      const m = line.match(/^\s*\[\[?([^\[\]]*)\]\]?\s*(#.*)?$/);
      if (m) headers.push({ line: index, path: tomlKeyPath(m[1]) });
    }
    let pos = 0;
    while (pos < line.length) {
      if (open !== null) {
        const k = line.indexOf(open, pos);
        if (k < 0) break;
        open = null;
        pos = k + 3;
      } else {
        const hash = line.indexOf("#", pos);
        const candidates = ['"""', "'''"].map((d) => ({ d, k: line.indexOf(d, pos) }))
          .filter((c) => c.k >= 0 && (hash < 0 || c.k < hash)).sort((a, b) => a.k - b.k);
        if (candidates.length === 0) break;
        open = candidates[0].d;
        pos = candidates[0].k + 3;
      }
    }
  });
  return headers;
}

/** Line ranges of the `[mcp_servers.NAME]` table and its sub-tables. */
function tomlRanges(lines: string[], name: string): [number, number][] {
  const headers = tomlHeaders(lines);
  const ours = (h: Header) => h.path?.[0] === "mcp_servers" && h.path[1] === name;
  const ranges: [number, number][] = [];
  headers.forEach((h, i) => {
    if (!ours(h) || (ranges.length > 0 && h.line < ranges.at(-1)![1])) return;
    const next = headers.slice(i + 1).find((other) => !ours(other));
    let end = next ? next.line : lines.length;
    // Blank lines and comments just before the next table belong to it.
    while (end > h.line + 1 && /^\s*(#.*)?$/.test(lines[end - 1])) end--;
    ranges.push([h.line, end]);
  });
  return ranges;
}

function tomlError(file: string, error: unknown): ConfigFileError {
  const e = error as { line?: number; column?: number; message?: string };
  const where = e.line ? ` at line ${e.line}, column ${e.column ?? 1}` : "";
  const what = String(e.message ?? error).split("\n")[0].replace(/^Invalid TOML document: /, "");
  return new ConfigFileError(`${file} is not valid TOML: ${what}${where}; ${FIX}`);
}

/**
 * Sets the `[mcp_servers.NAME]` table (and its sub-tables such as
 * `[mcp_servers.NAME.env]`) of a Codex `config.toml`, in place of the old
 * one or appended; comments and every other table stay as they are. The
 * result is parsed to check that it holds exactly the intended entry.
 */
export function editToml(
  text: string | undefined,
  file: string,
  name: string,
  entry: ClientEntry,
  env: Record<string, string>,
): EditResult {
  const source = text ?? "";
  let doc: Obj;
  try {
    doc = parseToml(source) as Obj;
  } catch (error) {
    throw tomlError(file, error);
  }
  const servers = doc.mcp_servers;
  if (servers !== undefined && !isObject(servers)) {
    throw new ConfigFileError(`${file}: mcp_servers is ${describe(servers)}, not a table; ${FIX}`);
  }
  const existing = servers?.[name];
  const merged = mergeEntry(existing, entry, env);
  const block = stringifyToml({ mcp_servers: { [name]: merged } }).trim().split("\n");
  const snippet = block.join("\n");
  if (existing !== undefined && sameValue(existing, merged)) {
    return { text: source, changed: false, entry: merged, snippet };
  }
  const eol = source.includes("\r\n") ? "\r\n" : "\n";
  const lines = source.split(/\r?\n/);
  const ranges = tomlRanges(lines, name);
  let out: string[];
  if (ranges.length === 0) {
    const body = source.replace(/\s+$/, "");
    out = body === "" ? block : [...body.split(/\r?\n/), "", ...block];
    out.push("");
  } else {
    out = [];
    let from = 0;
    ranges.forEach(([start, end], i) => {
      out.push(...lines.slice(from, start));
      if (i === 0) {
        out.push(...block);
        if (end < lines.length && lines[end].trim() !== "") out.push("");
      }
      from = end;
    });
    out.push(...lines.slice(from));
  }
  const result = out.join(eol);
  let check: Obj;
  try {
    check = parseToml(result) as Obj;
  } catch (error) {
    throw new ConfigFileError(
      `${file}: could not add [mcp_servers.${name}] safely (${
        String((error as Error).message).split("\n")[0]
      }); the server is probably defined another way (an inline table or dotted keys): remove that definition, then run install again`,
    );
  }
  const written = (check.mcp_servers as Obj | undefined)?.[name];
  if (!sameValue(written, merged)) {
    throw new ConfigFileError(
      `${file}: could not add [mcp_servers.${name}] safely (the result did not read back as written); edit the file by hand`,
    );
  }
  return { text: result, changed: true, entry: merged, snippet };
}

/** A removal: the new text, or `undefined` when the file holds no such entry. */
export interface RemoveResult {
  /** The new text of the file (unchanged when `removed` is false). */
  text: string;
  /** Whether the entry was there and is gone from `text`. */
  removed: boolean;
}

function parseJsonObject(source: string, file: string): Obj {
  const errors: ParseError[] = [];
  const doc = parse(source, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0];
    throw new ConfigFileError(
      `${file} is not valid JSON: ${printParseErrorCode(e.error)} at ${
        position(source, e.offset)
      }; ${FIX}`,
    );
  }
  if (!isObject(doc)) {
    throw new ConfigFileError(
      `${file}: the top level is ${describe(doc)}, not a JSON object; ${FIX}`,
    );
  }
  return doc;
}

/**
 * The server entry `name` of a client's file (JSON under `rootKey`, or
 * Codex's TOML), or undefined when there is none. Throws
 * {@link ConfigFileError} for a malformed file.
 */
export function readEntry(
  text: string,
  file: string,
  format: "json" | "toml",
  rootKey: string,
  name: string,
): Record<string, unknown> | undefined {
  if (text.trim() === "") return undefined;
  let doc: Obj;
  if (format === "toml") {
    try {
      doc = parseToml(text) as Obj;
    } catch (error) {
      throw tomlError(file, error);
    }
  } else doc = parseJsonObject(text, file);
  const servers = doc[rootKey];
  const entry = isObject(servers) ? servers[name] : undefined;
  return isObject(entry) ? entry : undefined;
}

/**
 * Takes the server entry `name` out of a JSON (JSONC) document, keeping
 * comments, every other server and setting. Throws {@link ConfigFileError}
 * for a malformed file.
 */
export function removeJson(
  text: string,
  file: string,
  rootKey: string,
  name: string,
): RemoveResult {
  if (text.trim() === "") return { text, removed: false };
  const doc = parseJsonObject(text, file);
  const servers = doc[rootKey];
  if (!isObject(servers) || !Object.hasOwn(servers, name)) return { text, removed: false };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const edits = modify(text, [rootKey, name], undefined, { formattingOptions: { eol } });
  const out = applyEdits(text, edits);
  const check = parseJsonObject(out, file)[rootKey];
  if (isObject(check) && Object.hasOwn(check, name)) {
    throw new ConfigFileError(`${file}: could not remove "${name}" safely; edit the file by hand`);
  }
  return { text: out, removed: true };
}

/**
 * Takes the `[mcp_servers.NAME]` table and its sub-tables out of a Codex
 * `config.toml`, keeping comments and every other table; the result is
 * parsed to check that only that entry is gone.
 */
export function removeToml(text: string, file: string, name: string): RemoveResult {
  let doc: Obj;
  try {
    doc = parseToml(text) as Obj;
  } catch (error) {
    throw tomlError(file, error);
  }
  const servers = doc.mcp_servers;
  if (!isObject(servers) || !Object.hasOwn(servers, name)) return { text, removed: false };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const ranges = tomlRanges(lines, name);
  const out: string[] = [];
  let from = 0;
  for (const [start, end] of ranges) {
    out.push(...lines.slice(from, start));
    from = end;
    // One blank line between what was before and what follows.
    while (from < lines.length && lines[from].trim() === "") from++;
    if (out.length > 0 && out.at(-1)!.trim() !== "" && from < lines.length) out.push("");
  }
  out.push(...lines.slice(from));
  const result = out.join(eol);
  let check: Obj;
  try {
    check = parseToml(result) as Obj;
  } catch {
    throw new ConfigFileError(
      `${file}: could not remove [mcp_servers.${name}] safely (it is probably defined another way, as an inline table or dotted keys); edit the file by hand`,
    );
  }
  const left = check.mcp_servers;
  const { [name]: _gone, ...rest } = servers;
  const restLeft = isObject(left) ? left : {};
  if (
    (isObject(left) && Object.hasOwn(left, name)) || !sameValue(rest, restLeft) ||
    !sameValue({ ...doc, mcp_servers: undefined }, { ...check, mcp_servers: undefined })
  ) {
    throw new ConfigFileError(
      `${file}: could not remove [mcp_servers.${name}] safely (it is probably defined another way, as an inline table or dotted keys); edit the file by hand`,
    );
  }
  return { text: result, removed: true };
}

/** What {@link writeAtomic} did. */
export interface WriteResult {
  /** The file actually written (a symlink's target). */
  path: string;
  /** Where the previous content was kept, when there was some. */
  backup?: string;
}

/**
 * Writes `text` to `path` through a temporary file in the same folder and a
 * rename, so a reader never sees half a file. Creates parent folders, keeps
 * the previous file's permission bits, follows a symlink to its target and
 * keeps the previous content in `<file>.bak` when there was any.
 */
export async function writeAtomic(
  path: string,
  text: string,
  previous: string | undefined,
): Promise<WriteResult> {
  let target = path;
  let mode: number | undefined;
  try {
    if ((await Deno.lstat(path)).isSymlink) target = await Deno.realPath(path);
    const info = await Deno.stat(target);
    if (info.mode !== null) mode = info.mode & 0o7777;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const dir = parentDir(target);
  await Deno.mkdir(dir, { recursive: true });
  const posix = Deno.build.os !== "windows";
  let backup: string | undefined;
  if (previous !== undefined && previous !== "") {
    backup = `${target}.bak`;
    await writeVia(backup, previous, mode, posix);
  }
  await writeVia(target, text, mode, posix);
  return { path: target, backup };
}

async function writeVia(
  target: string,
  text: string,
  mode: number | undefined,
  posix: boolean,
): Promise<void> {
  const dir = parentDir(target);
  const base = target.slice(dir.length + 1);
  const temp = `${dir}/.${base}.${Deno.pid}-${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temp, text, { createNew: true, mode: mode ?? 0o644 });
    if (posix && mode !== undefined) await Deno.chmod(temp, mode);
    await Deno.rename(temp, target);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}
