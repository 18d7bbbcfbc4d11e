/**
 * Code outlines: the definitions of a source file (classes, functions,
 * methods, structs, traits, impls, interfaces, enums), nested, with line
 * ranges and the first line of their docstring or doc comment, found with
 * tree-sitter.
 *
 * The parser runtime and each grammar load once per process, on first use.
 * A definition's range starts at its decorators, attributes and the doc
 * comment directly above it, and ends at its last line.
 *
 * @module
 */
import type { Language, Node, Parser } from "web-tree-sitter";
import { type CodeLanguage, type CodeLanguageId, isClassLike } from "./languages.ts";
import { npmBytes, RAW_IMPORTS_OFF } from "../../runtime/npm_bytes.ts";

/** One definition. */
export interface Definition {
  /** Kind (class, function, method, struct, …). */
  kind: string;
  /** Word shown before the name (`def`, `fn`, `class`, …). */
  keyword: string;
  /** Name as written. */
  name: string;
  /** Dotted name with its enclosing definitions (`Loop.run_forever`). */
  qualified: string;
  /** First line (1-based), including decorators and the doc comment above. */
  startLine: number;
  /** Last line (1-based, inclusive). */
  endLine: number;
  /** First line of its docstring or doc comment. */
  doc?: string;
  /** Nesting depth (0 at the top). */
  depth: number;
  /** Nested definitions. */
  children: Definition[];
}

/** Why a file has no outline. */
export class OutlineUnavailable extends Error {}

/** Files larger than this are not parsed (characters). */
export const MAX_OUTLINE_CHARS = 4_000_000;
/** Parsing stops after this long (milliseconds). */
export const PARSE_BUDGET_MS = 3_000;
/** Definitions kept per file. */
export const MAX_DEFINITIONS = 20_000;

/** The tree-sitter runtime package (keep in step with deno.json). */
export const RUNTIME_PACKAGE = "web-tree-sitter@0.27.2";

type TreeSitter = typeof import("web-tree-sitter");
let runtime: Promise<TreeSitter> | undefined;
const languages = new Map<CodeLanguageId, Promise<Language>>();

async function loadRuntime(): Promise<TreeSitter> {
  const ts = await import("web-tree-sitter");
  let wasmBinary: Uint8Array;
  try {
    wasmBinary = await npmBytes(`npm:${RUNTIME_PACKAGE}/web-tree-sitter.wasm`);
  } catch (error) {
    throw new OutlineUnavailable(
      RAW_IMPORTS_OFF.test(String(error))
        ? "tree-sitter needs Deno's --unstable-raw-imports flag (the start task has it)"
        : `the tree-sitter runtime did not load: ${String(error).split("\n")[0]}`,
    );
  }
  await ts.Parser.init({ wasmBinary: wasmBinary as unknown as ArrayBuffer });
  return ts;
}

/** The tree-sitter runtime (loaded once). */
function treeSitter(): Promise<TreeSitter> {
  runtime ??= loadRuntime().catch((error) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

/** The grammar of `language` (loaded once). */
async function grammar(language: CodeLanguage): Promise<Language> {
  const ts = await treeSitter();
  let loaded = languages.get(language.id);
  if (!loaded) {
    loaded = language.grammar().then((bytes) => ts.Language.load(bytes));
    loaded.catch(() => languages.delete(language.id));
    languages.set(language.id, loaded);
  }
  try {
    return await loaded;
  } catch (error) {
    throw new OutlineUnavailable(
      `the ${language.id} grammar did not load (${(error as Error).message.split("\n")[0]})`,
    );
  }
}

let parser: Parser | undefined;

/**
 * The definitions of `text` in `language`, nested. Throws
 * {@link OutlineUnavailable} when the file is too large, parsing ran out
 * of time, or the grammar is not available.
 */
export async function outline(text: string, language: CodeLanguage): Promise<Definition[]> {
  if (text.length > MAX_OUTLINE_CHARS) {
    throw new OutlineUnavailable(`the file is larger than ${MAX_OUTLINE_CHARS} characters`);
  }
  const lang = await grammar(language);
  const ts = await treeSitter();
  parser ??= new ts.Parser();
  parser.setLanguage(lang);
  const deadline = performance.now() + PARSE_BUDGET_MS;
  const tree = parser.parse(text, null, {
    progressCallback: (() => performance.now() > deadline) as () => void,
  });
  if (!tree) throw new OutlineUnavailable(`parsing took longer than ${PARSE_BUDGET_MS} ms`);
  try {
    return adoptOwned(collect(tree.rootNode, language, text.split("\n")));
  } finally {
    tree.delete();
  }
}

/** Owners of definitions declared outside their type (Go methods): definition to type name. */
const owners = new WeakMap<Definition, string>();

/**
 * Moves each top-level definition that names an owner (a Go method's
 * receiver type) under the top-level type of that name in the same file,
 * in line order among its children, one level deeper. A method whose type
 * is declared elsewhere stays at the top level.
 */
function adoptOwned(top: Definition[]): Definition[] {
  const types = new Map<string, Definition>();
  for (const d of top) if (isClassLike(d.kind) || d.kind === "type") types.set(d.name, d);
  const kept: Definition[] = [];
  for (const d of top) {
    const owner = owners.get(d);
    const type = owner !== undefined ? types.get(owner) : undefined;
    if (!type || type === d) {
      kept.push(d);
      continue;
    }
    const deepen = [d];
    while (deepen.length > 0) {
      const x = deepen.pop()!;
      x.depth++;
      deepen.push(...x.children);
    }
    type.children.push(d);
    type.children.sort((a, b) => a.startLine - b.startLine);
  }
  return kept;
}

/** Walks the tree (iteratively: nesting depth is unbounded) and collects definitions. */
function collect(root: Node, language: CodeLanguage, lines: readonly string[]): Definition[] {
  const top: Definition[] = [];
  const open: { def: Definition; end: number; scope: string }[] = [];
  const cursor = root.walk();
  let count = 0;
  try {
    for (;;) {
      const type = cursor.nodeType;
      if (language.definitionTypes.has(type) && count < MAX_DEFINITIONS) {
        const start = cursor.startIndex;
        while (open.length > 0 && start >= open[open.length - 1].end) open.pop();
        const parent = open.at(-1);
        const node = cursor.currentNode;
        const found = language.match(node, parent ? isClassLike(parent.def.kind) : false);
        if (found) {
          count++;
          const defRow = outer(node, language).startPosition.row;
          const leadRow = leadingRow(lines, defRow, language);
          const scopeName = found.owner ?? parent?.scope;
          const def: Definition = {
            kind: found.kind,
            keyword: found.keyword,
            name: found.name,
            qualified: scopeName ? `${scopeName}.${found.name}` : found.name,
            startLine: leadRow + 1,
            endLine: lastLine(node) + 1,
            doc: docLine(node, language, lines, leadRow, defRow),
            depth: parent ? parent.def.depth + 1 : 0,
            children: [],
          };
          if (found.owner !== undefined && !parent) owners.set(def, found.owner);
          (parent ? parent.def.children : top).push(def);
          open.push({
            def,
            end: cursor.endIndex,
            scope: found.scope ? (scopeName ? `${scopeName}.${found.scope}` : found.scope) : def
              .qualified,
          });
        }
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return top;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** The last line of a node, not counting a final newline it ends with. */
function lastLine(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

/** The node with its wrappers (decorators, `export`, `template <…>`). */
function outer(node: Node, language: CodeLanguage): Node {
  let n = node;
  for (let i = 0; i < 4; i++) {
    const p = n.parent;
    if (!p || !language.wrapperTypes.has(p.type)) break;
    // A declaration holding several declarators is not one definition's wrapper.
    if (p.namedChildCount > 2 && p.type.endsWith("declaration")) break;
    n = p;
  }
  return n;
}

/**
 * The 0-based first row of the comment and attribute lines directly above
 * row `row` (no blank line between), or `row` when there are none.
 */
function leadingRow(lines: readonly string[], row: number, language: CodeLanguage): number {
  let first = row;
  for (let r = row - 1; r >= 0 && row - r <= 400; r--) {
    const line = lines[r];
    if (/\*\/\s*$/.test(line) && !line.includes("/*")) {
      // The end of a block comment: go up to its start.
      let open = r - 1;
      while (open >= 0 && row - open <= 400 && !lines[open].includes("/*")) open--;
      if (open < 0 || row - open > 400) break;
      first = r = open;
      continue;
    }
    if (!language.leadingLine.test(line)) break;
    first = r;
  }
  return first;
}

const MAX_DOC = 160;

/** First meaningful line of a docstring or comment text. */
export function firstDocLine(raw: string): string | undefined {
  for (let line of raw.slice(0, 20_000).split("\n")) {
    line = line
      .replace(/^\s*(?:\/\*\*?!?|\/\/[\/!]?|#+|\*+(?!\/)|--|"""|''')?/, "")
      .replace(/\*\/\s*$/, "")
      .replace(/<\/?[a-zA-Z][^>]*>/g, "")
      // deno-lint-ignore no-control-regex
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .trim();
    if (line === "" || /^[-=*_/#~]+$/.test(line)) continue;
    if (/^@\w/.test(line)) return undefined;
    return line.length > MAX_DOC ? `${line.slice(0, MAX_DOC - 1)}…` : line;
  }
  return undefined;
}

/** The first line of a definition's docstring or doc comment. */
function docLine(
  node: Node,
  language: CodeLanguage,
  lines: readonly string[],
  leadRow: number,
  defRow: number,
): string | undefined {
  if (language.bodyDocstring) {
    const first = node.childForFieldName("body")?.firstNamedChild;
    const string = first?.type === "expression_statement" ? first.firstNamedChild : null;
    if (string?.type === "string") {
      const text = string.text.replace(/^[rRuUbBfF]{0,2}("""|'''|"|')/, "").replace(
        /("""|'''|"|')$/,
        "",
      );
      return firstDocLine(text);
    }
  }
  if (leadRow === defRow) return undefined;
  return firstDocLine(
    lines.slice(leadRow, defRow).filter((l) => !language.attributeLine?.test(l)).join("\n"),
  );
}

/** Definitions in document order (pre-order). */
export function flatten(defs: readonly Definition[]): Definition[] {
  const out: Definition[] = [];
  const stack = [...defs].reverse();
  while (stack.length > 0) {
    const d = stack.pop()!;
    out.push(d);
    for (let i = d.children.length - 1; i >= 0; i--) stack.push(d.children[i]);
  }
  return out;
}
