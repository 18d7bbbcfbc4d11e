/**
 * The languages code outlines know: file extensions, the grammar bytes, and
 * which syntax nodes are definitions.
 *
 * Grammars come from `@vscode/tree-sitter-wasm` (all of them load under
 * web-tree-sitter 0.27; C files are read with the C++ grammar, which parses C
 * well enough for an outline), Kotlin's from
 * `@tree-sitter-grammars/tree-sitter-kotlin` and Scala's from
 * `tree-sitter-scala`, whose packages ship a `.wasm` that loads under 0.27
 * too (no Swift package on npm ships one). The bytes are imported as modules
 * (`with { type: "bytes" }`, Deno's `--unstable-raw-imports`), so the server
 * needs no read permission; each grammar is imported on first use only.
 * Without that flag (`deno run -A jsr:@parkour/mcp/cli`: a registry copy
 * brings no deno.json settings), a process that may read the file reads it
 * from Deno's npm cache instead ({@link npmBytes}).
 *
 * @module
 */
import type { Node } from "web-tree-sitter";
import { npmBytes } from "../../runtime/npm_bytes.ts";

/** Identifiers of the languages with outlines. */
export type CodeLanguageId =
  | "python"
  | "javascript"
  | "typescript"
  | "tsx"
  | "go"
  | "rust"
  | "java"
  | "c"
  | "cpp"
  | "csharp"
  | "ruby"
  | "php"
  | "kotlin"
  | "scala";

/** What a definition node is. */
export interface DefinitionMatch {
  /** Kind: class, function, method, struct, trait, impl, interface, enum, module, type, … */
  kind: string;
  /** Word shown before the name in headings (`def`, `fn`, `class`, …). */
  keyword: string;
  /** The name (as written; may be qualified, like `Foo::bar`). */
  name: string;
  /** Name its children are qualified with, when not `name` (Rust impls, Go receivers). */
  scope?: string;
  /** Scope this definition belongs to although it is not nested (Go methods). */
  owner?: string;
}

/** How one language marks definitions. */
export interface CodeLanguage {
  /** Identifier. */
  id: CodeLanguageId;
  /** File extensions (lowercase, without the dot). */
  extensions: readonly string[];
  /** Node types that may be definitions (checked by `match`). */
  definitionTypes: ReadonlySet<string>;
  /** Decides whether a node is a definition, and what it is. */
  match(node: Node, insideClass: boolean): DefinitionMatch | undefined;
  /** Lines directly above a definition that belong to it (comments, attributes). */
  leadingLine: RegExp;
  /** Those of them that are attributes, not documentation. */
  attributeLine?: RegExp;
  /** Parent node types that wrap a definition (decorators, `export`, templates). */
  wrapperTypes: ReadonlySet<string>;
  /** Whether docstrings are the first string of the body (Python). */
  bodyDocstring: boolean;
  /** The grammar's WebAssembly bytes. */
  grammar(): Promise<Uint8Array>;
}

const field = (node: Node, name: string): string | undefined =>
  node.childForFieldName(name)?.text ?? undefined;

const CLASS_LIKE = new Set(["class", "struct", "interface", "trait", "impl", "enum", "module"]);

/** Whether a definition kind holds methods. */
export function isClassLike(kind: string): boolean {
  return CLASS_LIKE.has(kind);
}

function rule(
  table: Record<string, [kind: string, keyword: string]>,
  method?: { keyword: string },
): (node: Node, insideClass: boolean) => DefinitionMatch | undefined {
  return (node, insideClass) => {
    const entry = table[node.type];
    if (!entry) return undefined;
    const name = field(node, "name");
    if (!name) return undefined;
    let [kind, keyword] = entry;
    if (kind === "function" && insideClass) {
      kind = "method";
      if (method) keyword = method.keyword;
    }
    return { kind, keyword, name };
  };
}

// --- Python -------------------------------------------------------------------

const pythonRule = rule({
  class_definition: ["class", "class"],
  function_definition: ["function", "def"],
});

function pythonMatch(node: Node, insideClass: boolean): DefinitionMatch | undefined {
  const found = pythonRule(node, insideClass);
  if (found && node.type === "function_definition" && node.firstChild?.type === "async") {
    found.keyword = "async def";
  }
  return found;
}

// --- JavaScript and TypeScript ------------------------------------------------

const JS_TABLE: Record<string, [string, string]> = {
  class_declaration: ["class", "class"],
  abstract_class_declaration: ["class", "abstract class"],
  function_declaration: ["function", "function"],
  generator_function_declaration: ["function", "function*"],
  method_definition: ["method", "method"],
  interface_declaration: ["interface", "interface"],
  enum_declaration: ["enum", "enum"],
  type_alias_declaration: ["type", "type"],
  internal_module: ["module", "namespace"],
};
const JS_TOP = new Set(["program", "export_statement", "statement_block"]);
const jsRule = rule(JS_TABLE, { keyword: "function" });

function jsMatch(node: Node, insideClass: boolean): DefinitionMatch | undefined {
  if (node.type === "variable_declarator") {
    // `const f = () => …` and `const f = function () …`, at module level only.
    const value = node.childForFieldName("value")?.type;
    if (value !== "arrow_function" && value !== "function_expression") return undefined;
    const declaration = node.parent;
    if (!declaration || !JS_TOP.has(declaration.parent?.type ?? "")) return undefined;
    if (declaration.parent?.type === "statement_block") return undefined;
    const name = field(node, "name");
    return name ? { kind: "function", keyword: "const", name } : undefined;
  }
  return jsRule(node, insideClass);
}

const JS_TYPES = new Set([...Object.keys(JS_TABLE), "variable_declarator"]);

// --- C and C++ ----------------------------------------------------------------

/** The declared name of a C/C++ function definition. */
function cFunctionName(node: Node): string | undefined {
  let d: Node | null = node.childForFieldName("declarator");
  for (let i = 0; d && i < 32; i++) {
    if (d.type === "function_declarator") return d.childForFieldName("declarator")?.text;
    d = d.childForFieldName("declarator");
  }
  return undefined;
}

const C_SPECIFIERS: Record<string, [string, string]> = {
  class_specifier: ["class", "class"],
  struct_specifier: ["struct", "struct"],
  union_specifier: ["struct", "union"],
  enum_specifier: ["enum", "enum"],
};

function cMatch(node: Node, insideClass: boolean): DefinitionMatch | undefined {
  if (node.type === "function_definition") {
    const name = cFunctionName(node);
    if (!name) return undefined;
    return insideClass
      ? { kind: "method", keyword: "method", name }
      : { kind: "function", keyword: "function", name };
  }
  const entry = C_SPECIFIERS[node.type];
  if (!entry || !node.childForFieldName("body")) return undefined;
  const name = field(node, "name");
  return name ? { kind: entry[0], keyword: entry[1], name } : undefined;
}

// --- Go -----------------------------------------------------------------------

function goMatch(node: Node): DefinitionMatch | undefined {
  const name = field(node, "name");
  if (!name) return undefined;
  switch (node.type) {
    case "function_declaration":
      return { kind: "function", keyword: "func", name };
    case "method_declaration": {
      const receiver = node.childForFieldName("receiver");
      const type = receiver?.descendantsOfType("type_identifier")[0]?.text;
      return type
        ? { kind: "method", keyword: "func", name, owner: type }
        : { kind: "method", keyword: "func", name };
    }
    case "type_spec": {
      const type = node.childForFieldName("type")?.type;
      if (type === "struct_type") return { kind: "struct", keyword: "struct", name };
      if (type === "interface_type") return { kind: "interface", keyword: "interface", name };
      return { kind: "type", keyword: "type", name };
    }
  }
  return undefined;
}

// --- Rust ---------------------------------------------------------------------

const RUST_TABLE: Record<string, [string, string]> = {
  struct_item: ["struct", "struct"],
  enum_item: ["enum", "enum"],
  union_item: ["struct", "union"],
  trait_item: ["trait", "trait"],
  function_item: ["function", "fn"],
  function_signature_item: ["function", "fn"],
  mod_item: ["module", "mod"],
  macro_definition: ["macro", "macro_rules!"],
};
const rustRule = rule(RUST_TABLE);

function rustMatch(node: Node, insideClass: boolean): DefinitionMatch | undefined {
  if (node.type === "impl_item") {
    const type = field(node, "type");
    if (!type) return undefined;
    const trait = field(node, "trait");
    return {
      kind: "impl",
      keyword: "impl",
      name: trait ? `${trait} for ${type}` : type,
      scope: type,
    };
  }
  if (node.type === "mod_item" && !node.childForFieldName("body")) return undefined;
  return rustRule(node, insideClass);
}

// --- Ruby ---------------------------------------------------------------------

function rubyMatch(node: Node, insideClass: boolean): DefinitionMatch | undefined {
  const name = field(node, "name");
  if (!name) return undefined;
  switch (node.type) {
    case "class":
      return { kind: "class", keyword: "class", name };
    case "module":
      return { kind: "module", keyword: "module", name };
    case "method":
      return { kind: insideClass ? "method" : "function", keyword: "def", name };
    case "singleton_method":
      return { kind: "method", keyword: `def ${field(node, "object") ?? "self"}.`, name };
  }
  return undefined;
}

// --- Kotlin -------------------------------------------------------------------

function kotlinMatch(node: Node, insideClass: boolean): DefinitionMatch | undefined {
  const name = field(node, "name");
  switch (node.type) {
    case "class_declaration": {
      if (!name) return undefined;
      const words = node.children.map((c) => c?.type);
      if (words.includes("interface")) {
        return {
          kind: "interface",
          keyword: words.includes("fun") ? "fun interface" : "interface",
          name,
        };
      }
      const modifiers = node.children.find((c) => c?.type === "modifiers")?.text ?? "";
      if (/\benum\b/.test(modifiers)) return { kind: "enum", keyword: "enum class", name };
      const keyword = /\bdata\b/.test(modifiers)
        ? "data class"
        : /\bsealed\b/.test(modifiers)
        ? "sealed class"
        : "class";
      return { kind: "class", keyword, name };
    }
    case "object_declaration":
      return name ? { kind: "class", keyword: "object", name } : undefined;
    case "companion_object":
      return { kind: "class", keyword: "companion object", name: name ?? "Companion" };
    case "function_declaration":
      return name ? { kind: insideClass ? "method" : "function", keyword: "fun", name } : undefined;
    case "type_alias": {
      const alias = field(node, "type") ??
        node.children.find((c) => c?.type === "identifier")?.text;
      return alias ? { kind: "type", keyword: "typealias", name: alias } : undefined;
    }
  }
  return undefined;
}

// --- Scala --------------------------------------------------------------------

const SCALA_TABLE: Record<string, [string, string]> = {
  class_definition: ["class", "class"],
  object_definition: ["class", "object"],
  trait_definition: ["trait", "trait"],
  enum_definition: ["enum", "enum"],
  function_definition: ["function", "def"],
  function_declaration: ["function", "def"],
  type_definition: ["type", "type"],
};
const scalaRule = rule(SCALA_TABLE);

function scalaMatch(node: Node, insideClass: boolean): DefinitionMatch | undefined {
  const found = scalaRule(node, insideClass);
  if (found && node.type === "class_definition" && /^\s*case\b/.test(node.text.slice(0, 40))) {
    found.keyword = "case class";
  }
  return found;
}

// --- The table ----------------------------------------------------------------

const NONE: ReadonlySet<string> = new Set();
const SLASH_COMMENT = /^\s*(?:\/\/|\/\*|\*)/;
const HASH_COMMENT = /^\s*#/;

/** The npm package with the grammars (keep in step with deno.json). */
export const GRAMMAR_PACKAGE = "@vscode/tree-sitter-wasm@0.3.1";

/**
 * Keeps the grammar package in the module graph (so Deno installs it, and
 * `deno publish` lists it as a dependency) without running it.
 */
export const grammarPackage = (): Promise<unknown> => import("@vscode/tree-sitter-wasm");

/** A grammar's bytes ({@link npmBytes} of its {@link grammarSpecifier}). */
export function grammarBytes(name: string): Promise<Uint8Array> {
  return npmBytes(grammarSpecifier(name));
}

/**
 * Grammars from their own packages (keep in step with deno.json), by the
 * name {@link grammarBytes} is called with; the others are in
 * {@link GRAMMAR_PACKAGE}.
 */
export const OWN_GRAMMARS: Readonly<Record<string, string>> = {
  kotlin: "npm:@tree-sitter-grammars/tree-sitter-kotlin@1.1.0/tree-sitter-kotlin.wasm",
  scala: "npm:tree-sitter-scala@0.24.0/tree-sitter-scala.wasm",
};

/** The module specifier of a grammar's bytes (what the bundle embeds, too). */
export function grammarSpecifier(name: string): string {
  return OWN_GRAMMARS[name] ?? `npm:${GRAMMAR_PACKAGE}/wasm/tree-sitter-${name}.wasm`;
}

/** Every language with an outline. */
export const CODE_LANGUAGES: readonly CodeLanguage[] = [
  {
    id: "python",
    extensions: ["py", "pyi", "pyw"],
    definitionTypes: new Set(["class_definition", "function_definition"]),
    match: pythonMatch,
    leadingLine: HASH_COMMENT,
    wrapperTypes: new Set(["decorated_definition"]),
    bodyDocstring: true,
    grammar: () => grammarBytes("python"),
  },
  {
    id: "javascript",
    extensions: ["js", "mjs", "cjs", "jsx"],
    definitionTypes: JS_TYPES,
    match: jsMatch,
    leadingLine: SLASH_COMMENT,
    wrapperTypes: new Set(["export_statement", "lexical_declaration", "variable_declaration"]),
    bodyDocstring: false,
    grammar: () => grammarBytes("javascript"),
  },
  {
    id: "typescript",
    extensions: ["ts", "mts", "cts"],
    definitionTypes: JS_TYPES,
    match: jsMatch,
    leadingLine: SLASH_COMMENT,
    wrapperTypes: new Set(["export_statement", "lexical_declaration", "variable_declaration"]),
    bodyDocstring: false,
    grammar: () => grammarBytes("typescript"),
  },
  {
    id: "tsx",
    extensions: ["tsx"],
    definitionTypes: JS_TYPES,
    match: jsMatch,
    leadingLine: SLASH_COMMENT,
    wrapperTypes: new Set(["export_statement", "lexical_declaration", "variable_declaration"]),
    bodyDocstring: false,
    grammar: () => grammarBytes("tsx"),
  },
  {
    id: "go",
    extensions: ["go"],
    definitionTypes: new Set(["function_declaration", "method_declaration", "type_spec"]),
    match: goMatch,
    leadingLine: SLASH_COMMENT,
    wrapperTypes: new Set(["type_declaration"]),
    bodyDocstring: false,
    grammar: () => grammarBytes("go"),
  },
  {
    id: "rust",
    extensions: ["rs"],
    definitionTypes: new Set([...Object.keys(RUST_TABLE), "impl_item"]),
    match: rustMatch,
    leadingLine: /^\s*(?:\/\/|\/\*|\*|#!?\[)/,
    attributeLine: /^\s*#!?\[/,
    wrapperTypes: NONE,
    bodyDocstring: false,
    grammar: () => grammarBytes("rust"),
  },
  {
    id: "java",
    extensions: ["java"],
    definitionTypes: new Set([
      "class_declaration",
      "interface_declaration",
      "enum_declaration",
      "record_declaration",
      "annotation_type_declaration",
      "method_declaration",
      "constructor_declaration",
    ]),
    match: rule({
      class_declaration: ["class", "class"],
      interface_declaration: ["interface", "interface"],
      enum_declaration: ["enum", "enum"],
      record_declaration: ["class", "record"],
      annotation_type_declaration: ["interface", "@interface"],
      method_declaration: ["method", "method"],
      constructor_declaration: ["method", "constructor"],
    }),
    leadingLine: SLASH_COMMENT,
    wrapperTypes: NONE,
    bodyDocstring: false,
    grammar: () => grammarBytes("java"),
  },
  {
    id: "c",
    extensions: ["c", "h"],
    definitionTypes: new Set(["function_definition", ...Object.keys(C_SPECIFIERS)]),
    match: cMatch,
    leadingLine: SLASH_COMMENT,
    wrapperTypes: new Set(["template_declaration"]),
    bodyDocstring: false,
    grammar: () => grammarBytes("cpp"),
  },
  {
    id: "cpp",
    extensions: ["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp"],
    definitionTypes: new Set(["function_definition", ...Object.keys(C_SPECIFIERS)]),
    match: cMatch,
    leadingLine: SLASH_COMMENT,
    wrapperTypes: new Set(["template_declaration"]),
    bodyDocstring: false,
    grammar: () => grammarBytes("cpp"),
  },
  {
    id: "csharp",
    extensions: ["cs"],
    definitionTypes: new Set([
      "class_declaration",
      "struct_declaration",
      "interface_declaration",
      "enum_declaration",
      "record_declaration",
      "method_declaration",
      "constructor_declaration",
    ]),
    match: rule({
      class_declaration: ["class", "class"],
      struct_declaration: ["struct", "struct"],
      interface_declaration: ["interface", "interface"],
      enum_declaration: ["enum", "enum"],
      record_declaration: ["class", "record"],
      method_declaration: ["method", "method"],
      constructor_declaration: ["method", "constructor"],
    }),
    leadingLine: /^\s*(?:\/\/|\/\*|\*|\[)/,
    attributeLine: /^\s*\[/,
    wrapperTypes: NONE,
    bodyDocstring: false,
    grammar: () => grammarBytes("c-sharp"),
  },
  {
    id: "ruby",
    extensions: ["rb", "rake", "gemspec", "ru"],
    definitionTypes: new Set(["class", "module", "method", "singleton_method"]),
    match: rubyMatch,
    leadingLine: HASH_COMMENT,
    wrapperTypes: NONE,
    bodyDocstring: false,
    grammar: () => grammarBytes("ruby"),
  },
  {
    id: "php",
    extensions: ["php", "phtml"],
    definitionTypes: new Set([
      "class_declaration",
      "interface_declaration",
      "trait_declaration",
      "enum_declaration",
      "function_definition",
      "method_declaration",
    ]),
    match: rule({
      class_declaration: ["class", "class"],
      interface_declaration: ["interface", "interface"],
      trait_declaration: ["trait", "trait"],
      enum_declaration: ["enum", "enum"],
      function_definition: ["function", "function"],
      method_declaration: ["method", "function"],
    }),
    leadingLine: /^\s*(?:\/\/|\/\*|\*|#)/,
    attributeLine: /^\s*#\[/,
    wrapperTypes: NONE,
    bodyDocstring: false,
    grammar: () => grammarBytes("php"),
  },
  {
    id: "kotlin",
    extensions: ["kt", "kts"],
    definitionTypes: new Set([
      "class_declaration",
      "object_declaration",
      "companion_object",
      "function_declaration",
      "type_alias",
    ]),
    match: kotlinMatch,
    leadingLine: /^\s*(?:\/\/|\/\*|\*|@)/,
    attributeLine: /^\s*@/,
    wrapperTypes: NONE,
    bodyDocstring: false,
    grammar: () => grammarBytes("kotlin"),
  },
  {
    id: "scala",
    extensions: ["scala", "sc"],
    definitionTypes: new Set(Object.keys(SCALA_TABLE)),
    match: scalaMatch,
    leadingLine: /^\s*(?:\/\/|\/\*|\*|@)/,
    attributeLine: /^\s*@/,
    wrapperTypes: NONE,
    bodyDocstring: false,
    grammar: () => grammarBytes("scala"),
  },
];

const BY_EXTENSION = new Map(
  CODE_LANGUAGES.flatMap((l) => l.extensions.map((e) => [e, l] as const)),
);

/** The extension of a path or URL path ("" when none), lowercase. */
export function extensionOf(path: string): string {
  const last = path.split(/[?#]/)[0].split("/").pop() ?? "";
  const dot = last.lastIndexOf(".");
  return dot > 0 ? last.slice(dot + 1).toLowerCase() : "";
}

/** The language of a file path, by its extension. */
export function languageOf(path: string): CodeLanguage | undefined {
  return BY_EXTENSION.get(extensionOf(path));
}

/**
 * Extensions of source files without an outline that still read as code
 * (numbered lines in chunks), so the generic path sends them to
 * {@link languageOf}'s fallback instead of plain text.
 */
const OTHER_CODE = new Set([
  "sh",
  "bash",
  "zsh",
  "lua",
  "pl",
  "pm",
  "swift",
  "hs",
  "ml",
  "mli",
  "ex",
  "exs",
  "erl",
  "clj",
  "dart",
  "r",
  "jl",
  "zig",
  "nim",
  "m",
  "mm",
  "f90",
  "sql",
  "ps1",
  "vue",
  "svelte",
]);

/** Whether a path names a source file (with or without an outline). */
export function isSourcePath(path: string): boolean {
  const ext = extensionOf(path);
  return BY_EXTENSION.has(ext) || OTHER_CODE.has(ext);
}
