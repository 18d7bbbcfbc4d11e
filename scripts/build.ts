/**
 * Builds the distributable artifacts into `dist/`.
 *
 * ```sh
 * deno task bundle                  # dist/parkour.js, one file for `deno run`
 * deno task compile                 # standalone binaries whose runtime is cached
 * deno task compile --dry-run       # print the deno compile command lines
 * deno task compile --online        # every target (downloads the runtimes)
 * deno task compile --require       # every target; fail unless all were built
 * ```
 *
 * The bundle is `deno bundle --platform=deno --minify --keep-names` of
 * main.ts (minified because start-up reads the whole file: see
 * docs/architecture.md, "Start-up"), then three fixes that make it run from
 * an empty directory with an empty Deno cache:
 *
 * - The tree-sitter runtime and grammars and the o200k tokenizer's ranks are
 *   byte imports whose specifiers are built at run time, which no bundler
 *   can follow. Their bytes are embedded (brotli, base64: about 1.9 MB for
 *   all grammars), each in a function that is compiled only when its file
 *   is asked for, and the byte imports are pointed at them.
 * - Playwright finds its own files next to its code (`__dirname`), so it
 *   cannot be bundled: it stays a dynamic `npm:` import that Deno downloads
 *   from the npm registry on the first render. youtubei.js (the YouTube
 *   tools), redis and postgres (a shared deployment's stores) are large and
 *   needed only by some calls or deployments: they are left out the same
 *   way, so the bundle stays small and starts fast.
 * - Every other package is inside the bundle; the build fails if an
 *   import-map name is left in it, since an empty directory has no import map.
 *
 * Binaries are `deno compile` of that bundle, one per target, with the
 * stdio server's least-privilege flags baked in. `deno compile` needs the
 * target's runtime (denort), which it downloads from dl.deno.land unless
 * the zip is already in the Deno cache; targets without it are skipped
 * unless `--online` or `--require` is given. No package registry ships
 * denort (on npm, `deno` brings only the `deno` executable, through
 * `@deno/<os>-<arch>`), and `DENORT_BIN` set to that executable gives a
 * file that runs as plain `deno`: only denort reads the payload.
 *
 * @module
 */
import meta from "../deno.json" with { type: "json" };
import { permissions, shellQuote } from "../lib/install/launch.ts";
import { binaryFlags } from "../lib/install/launch.ts";
import { grammarSpecifier } from "../lib/content/code/languages.ts";
import { RUNTIME_PACKAGE } from "../lib/content/code/outline.ts";
import { O200K_RANKS_FILE } from "../lib/content/tokens/o200k.ts";
import { brotliCompressSync, constants as zlib } from "node:zlib";

/** Targets `deno compile` builds binaries for. */
export const TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/** File name of the bundle in the output folder. */
export const BUNDLE_NAME = "parkour.js";

/** File name of the binary for `target` (`parkour-<target>`, `.exe` on Windows). */
export function binaryName(target: string): string {
  return `parkour-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/** Packages left out of the bundle and imported from npm at run time. */
export const EXTERNAL_PACKAGES: readonly string[] = [
  "playwright-core",
  // Large, and needed only by some calls or deployments: loaded from npm on first use.
  "youtubei.js",
  "redis",
  "postgres",
  // The tokenizer's ranks as a module, for a process that cannot import bytes (never the
  // bundle, which embeds the rank file itself: see byteSpecifiers).
  "gpt-tokenizer/bpeRanks/o200k_base",
];

/**
 * Large modules needed only by some calls, bundled on their own and embedded
 * compressed like the files, by import name and entry file: start-up reads
 * the whole bundle (docs/architecture.md, "Start-up"). The first call that
 * needs one imports it from a blob URL.
 */
export const EMBEDDED_MODULES: Readonly<Record<string, string>> = {
  // pdf.js: 1.6 MB of code, needed from the first PDF.
  unpdf: "scripts/embedded/unpdf.ts",
};

const ROOT_DIR = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");
const DEFAULT_OUT = `${ROOT_DIR}/dist`;
const IMPORTS: Record<string, string> = meta.imports;

/** A bad command line: printed as one line, exit code 2. */
class UsageError extends Error {}

/** The `deno run` flags a user runs the bundle with (the stdio server's). */
export function runFlags(): string[] {
  return permissions({ mode: "stdio" }).flags;
}

/** The `deno bundle` arguments (after the executable) writing `output`. */
export function bundleArgs(output: string): string[] {
  return [
    "bundle",
    "--platform=deno",
    "--unstable-raw-imports",
    // Start-up reads the whole file, at a cost that grows with its size (docs/benchmarks.md):
    // minified, it is two thirds smaller; names are kept for errors and stack traces.
    "--minify",
    "--keep-names",
    ...EXTERNAL_PACKAGES.flatMap((p) => ["--external", p]),
    ...Object.keys(EMBEDDED_MODULES).flatMap((m) => ["--external", m]),
    "--output",
    output,
    "main.ts",
  ];
}

/** The `deno compile` arguments (after the executable) for one target. */
export function compileArgs(target: string, bundle: string, outDir: string): string[] {
  return [
    "compile",
    "--no-config",
    "--target",
    target,
    "--output",
    `${outDir}/${binaryName(target)}`,
    // The stdio server's flags plus what install, doctor and rendering need;
    // serve gives those up after start-up (lib/runtime/privileges.ts).
    ...binaryFlags(),
    // The bundle imports Playwright from npm at its first render; a binary
    // cannot download it, so it carries the package.
    ...EXTERNAL_PACKAGES.flatMap((p) => ["--include", IMPORTS[p]]),
    bundle,
  ];
}

// --- The bundle ---------------------------------------------------------------

/** What a bundle build measured. */
export interface BundleReport {
  /** The bundle's path. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
  /** Modules esbuild reported. */
  modules: number;
  /** Wall-clock time of the whole build (milliseconds). */
  ms: number;
  /** Embedded files by specifier, with their raw and embedded sizes. */
  embedded: { specifier: string; bytes: number; embeddedBytes: number }[];
}

/** The specifiers of the byte imports the product makes at run time. */
async function byteSpecifiers(): Promise<string[]> {
  const source = await Deno.readTextFile(`${ROOT_DIR}/lib/content/code/languages.ts`);
  const names = [...new Set([...source.matchAll(/grammarBytes\("([\w-]+)"\)/g)].map((m) => m[1]))];
  if (names.length === 0) {
    throw new Error(
      'found no grammarBytes("…") calls in lib/content/code/languages.ts: update scripts/build.ts',
    );
  }
  return [
    `npm:${RUNTIME_PACKAGE}/web-tree-sitter.wasm`,
    ...names.sort().map(grammarSpecifier),
    // The o200k tokenizer's ranks (lib/content/tokens/o200k.ts).
    O200K_RANKS_FILE,
  ];
}

/**
 * A file as the bundle embeds it: brotli (quality 9: a third smaller than
 * gzip on the grammars, in about a second; 11 saves 9 % more in 30 s), base64.
 * Decoded by the prelude's loader (`DecompressionStream("brotli")`).
 */
export function embedBytes(bytes: Uint8Array): string {
  const packed = brotliCompressSync(bytes, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 9,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  let text = "";
  for (let i = 0; i < packed.length; i += 0x8000) {
    text += String.fromCharCode(...packed.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

const LOADER = "__parkourEmbeddedBytes";
const TABLE = "__parkourEmbeddedFiles";
const CREATE_REQUIRE = "__parkourCreateRequire";
const NPM_IMPORT = "__parkourNpmImport";
const MODULE_LOADER = "__parkourEmbeddedModule";

/**
 * Code placed before the bundle: the embedded files and their loader. Each
 * file is a string literal inside its own function, which V8 compiles only
 * when the file is first asked for: a string at the top level would be
 * compiled with the bundle, stored in Deno's V8 code cache and copied into
 * the heap at every start (docs/benchmarks.md, "Start-up").
 */
export function prelude(files: Record<string, string>): string {
  const table = Object.entries(files).map(([k, v]) => `  ${JSON.stringify(k)}: () => "${v}",`);
  return [
    `// Parkour for Deno ${meta.version}: one-file bundle built by scripts/build.ts.`,
    `// Run: deno run ${runFlags().join(" ")} ${BUNDLE_NAME}`,
    `import { createRequire as ${CREATE_REQUIRE} } from "node:module";`,
    `// Packages imported from npm on first use (a name in a variable, so Deno`,
    `// does not download them at start-up).`,
    `const ${NPM_IMPORT} = (specifier) => import(specifier);`,
    `// Files the product imports as bytes, embedded (brotli, base64), each in a`,
    `// function so that it is compiled only when asked for.`,
    `const ${TABLE} = {`,
    ...table,
    `};`,
    `async function ${LOADER}(specifier) {`,
    `  const data = Object.hasOwn(${TABLE}, specifier) ? ${TABLE}[specifier]() : undefined;`,
    `  if (data === undefined) {`,
    "    throw new TypeError(`${specifier} is not embedded in this bundle; it embeds only ` +",
    `      "the tree-sitter runtime and grammars and the o200k ranks (run from the source for other files)");`,
    `  }`,
    `  const packed = typeof Uint8Array.fromBase64 === "function"`,
    `    ? Uint8Array.fromBase64(data)`,
    `    : Uint8Array.from(atob(data), (c) => c.charCodeAt(0));`,
    `  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("brotli"));`,
    `  return { default: new Uint8Array(await new Response(stream).arrayBuffer()) };`,
    `}`,
    `// Modules embedded the same way, imported from a blob URL on first use.`,
    `async function ${MODULE_LOADER}(name) {`,
    `  const { default: code } = await ${LOADER}(name);`,
    `  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));`,
    `  try {`,
    `    return await import(url);`,
    `  } finally {`,
    `    URL.revokeObjectURL(url);`,
    `  }`,
    `}`,
    ``,
  ].join("\n");
}

/** esbuild's \`require\` shim, which throws where no \`require\` exists (an ES module). */
const REQUIRE_SHIM =
  /^var __require = [^\n]*\n(?:[^\n]*\n){0,8}?\s*throw Error\('Dynamic require of "' \+ \w+ \+ '" is not supported'\);\n\}\);\n/m;

/** The same shim, minified (in a `var` list): `x=(e=>typeof require<"u"?require:...)(...);`. */
const MINIFIED_REQUIRE_SHIM =
  /\b([\w$]+)=\(([\w$]+)=>typeof require<"u"\?require:typeof Proxy<"u"\?new Proxy\(\2,\{get:\(([\w$]+),([\w$]+)\)=>\(typeof require<"u"\?require:\3\)\[\4\]\}\):\2\)\(function\(([\w$]+)\)\{if\(typeof require<"u"\)return require\.apply\(this,arguments\);throw Error\('Dynamic require of "'\+\5\+'" is not supported'\)\}\);/;

const BYTES_IMPORT =
  /\bimport\(((?:[^(),]|\([^()]*\))+?)\s*,\s*\{\s*with:\s*\{\s*type:\s*"bytes"\s*\}\s*,?\s*\}\s*\)/g;

/**
 * Makes esbuild's output runnable from an empty directory: byte imports
 * read the embedded files, external packages become `npm:` imports. Throws
 * when the output does not have the expected shape.
 */
export function finishBundle(
  code: string,
  files: Record<string, string>,
  eager: (path: string) => boolean = () => false,
): string {
  const taken = [LOADER, TABLE, CREATE_REQUIRE, NPM_IMPORT, MODULE_LOADER].filter((n) =>
    code.includes(n)
  );
  if (taken.length) throw new Error(`the bundle already uses the name ${taken.join(", ")}`);
  let byteImports = 0;
  let out = code.replace(BYTES_IMPORT, (_, specifier: string) => {
    byteImports++;
    return `${LOADER}(${specifier})`;
  });
  if (byteImports === 0 || /type:\s*"bytes"/.test(out)) {
    throw new Error(
      `expected the tree-sitter byte imports in esbuild's output (found ${byteImports} in the ` +
        "known shape): update BYTES_IMPORT in scripts/build.ts",
    );
  }
  for (const name of EXTERNAL_PACKAGES) {
    const from = `import(${JSON.stringify(name)})`;
    if (!out.includes(from)) throw new Error(`expected ${from} in esbuild's output`);
    out = out.replaceAll(from, `${NPM_IMPORT}(${JSON.stringify(IMPORTS[name])})`);
  }
  for (const name of Object.keys(EMBEDDED_MODULES).filter((m) => files[m] !== undefined)) {
    const from = `import(${JSON.stringify(name)})`;
    if (!out.includes(from)) throw new Error(`expected ${from} in esbuild's output`);
    out = out.replaceAll(from, `${MODULE_LOADER}(${JSON.stringify(name)})`);
  }
  // With external packages, deno bundle leaves esbuild's throwing shim in
  // place of \`require\` (CommonJS code asking for node:process): use Node's.
  if (!out.includes("__deno_internal_createRequire")) {
    if (REQUIRE_SHIM.test(out)) {
      out = out.replace(REQUIRE_SHIM, `var __require = ${CREATE_REQUIRE}(import.meta.url);\n`);
    } else if (MINIFIED_REQUIRE_SHIM.test(out)) {
      out = out.replace(
        MINIFIED_REQUIRE_SHIM,
        (_, name: string) => `${name}=${CREATE_REQUIRE}(import.meta.url);`,
      );
    } else {
      throw new Error("expected esbuild's require shim in its output: update REQUIRE_SHIM");
    }
  }
  // Code only: a package's documentation comments may show an import of its own name.
  const live = out.split("\n").filter((line) => !/^\s*(?:\*|\/\/)/.test(line)).join("\n");
  const left = Object.keys(IMPORTS).filter((name) =>
    new RegExp(`\\b(?:import\\(|from )"${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}"`).test(
      live,
    )
  );
  if (left.length) {
    throw new Error(
      `the bundle still imports ${left.join(", ")} by import-map name, ` +
        "which an empty directory cannot resolve",
    );
  }
  return prelude(files) + asciiOnly(initEagerly(out, eager));
}

/**
 * `code` with every character outside ASCII written as a `\u` escape (a
 * surrogate pair beyond the BMP): one such character makes Deno convert the
 * whole module to a string of two bytes a character, twice the file's size,
 * at every start (about 25 ms for the bundle: docs/benchmarks.md,
 * "Start-up"); an ASCII-only module stays one byte a character. The escape means the same character in strings, templates,
 * regular expressions, identifiers and comments; only a template's raw text
 * would differ, so the build fails on `String.raw` over such a character.
 */
export function asciiOnly(code: string): string {
  const raw = /String\.raw`[^`]*[\u0080-\uffff]/.exec(code);
  if (raw) {
    throw new Error(
      `the bundle has String.raw over a character outside ASCII (${
        JSON.stringify(raw[0].slice(-40))
      }), which an escape would change: write the character as an escape in the source`,
    );
  }
  // A character after an odd run of backslashes was escaped itself (`"\\é"` is `"é"`): its
  // backslash goes, or the new escape would be read as a backslash and the letters `u00e9`.
  return code.replace(
    /(\\*)([\u0080-\uffff])/g,
    (_, slashes: string, c: string) =>
      `${slashes.length % 2 ? slashes.slice(1) : slashes}\\u${
        c.charCodeAt(0).toString(16).padStart(4, "0")
      }`,
  );
}

/**
 * esbuild wraps every module that a dynamic import also reaches in a lazy
 * initialiser (`var init_x = __esm(...)`), and drops the calls to it from
 * importers when the module's package says it has no side effects
 * (`"sideEffects": false`): zod's schema classes then stay undefined
 * (`ZodLazy is not a constructor`). The wrapped modules `eager` selects
 * (the side-effect-free packages main.ts loads at start-up anyway) are
 * initialised once all of them are defined.
 */
function initEagerly(code: string, eager: (path: string) => boolean): string {
  const wrapper = /^var (init_[\w$]+) = __esm\(\{\n\s*"([^"]+)"\(\) \{$/gm;
  const calls: string[] = [];
  let end = -1;
  for (const m of code.matchAll(wrapper)) {
    if (!eager(m[2])) continue;
    const close = code.indexOf("\n});\n", m.index);
    if (close < 0) throw new Error(`no end to esbuild's wrapper of ${m[2]}`);
    calls.push(`${m[1]}();`);
    end = Math.max(end, close + 5);
  }
  if (calls.length === 0) return code;
  const note = "// Side-effect-free packages esbuild would leave uninitialised (scripts/build.ts).";
  return `${code.slice(0, end)}${note}\n${calls.join("\n")}\n${code.slice(end)}`;
}

/**
 * Which of esbuild's module paths (relative to the repository) belong to a
 * side-effect-free package that main.ts imports statically, directly or
 * through another package (from `deno info --json main.ts`).
 */
async function eagerModules(): Promise<(path: string) => boolean> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT_DIR,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error("`deno info --json main.ts` failed");
  interface Dep {
    code?: { specifier: string };
    isDynamic?: boolean;
  }
  const info: {
    roots: string[];
    modules: { specifier: string; dependencies?: Dep[] }[];
    redirects: Record<string, string>;
    npmPackages: Record<string, { dependencies: string[]; localPath?: string }>;
  } = JSON.parse(new TextDecoder().decode(out.stdout));
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [...info.roots];
  while (queue.length) {
    let specifier = queue.pop()!;
    specifier = info.redirects[specifier] ?? specifier;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    const npm = /^npm:\/?((?:@[^/]+\/)?[^/@]+@[^/]+)/.exec(specifier);
    if (npm) {
      packages.add(npm[1]);
      continue;
    }
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (dep.code && !dep.isDynamic) queue.push(dep.code.specifier);
    }
  }
  for (const id of [...packages]) {
    for (const dep of info.npmPackages[id]?.dependencies ?? []) {
      if (!packages.has(dep)) {
        packages.add(dep);
      }
    }
  }
  const roots = [...packages].map((id) => info.npmPackages[id]?.localPath).filter(Boolean)
    .map((p) => p!.replace(/\\/g, "/").replace(/\/$/, "") + "/");
  const pure = new Map<string, boolean>();
  const sideEffectFree = (dir: string): boolean => {
    if (!pure.has(dir)) {
      let value = false;
      try {
        const pkg = JSON.parse(Deno.readTextFileSync(`${dir}/package.json`));
        value = pkg.sideEffects === false || Array.isArray(pkg.sideEffects);
      } catch {
        const up = dir.replace(/\/[^/]+$/, "");
        value = up !== dir && up.length > ROOT_DIR.length ? sideEffectFree(up) : false;
      }
      pure.set(dir, value);
    }
    return pure.get(dir)!;
  };
  return (path: string) => {
    const full = `${ROOT_DIR}/${path}`;
    const root = roots.find((r) => full.startsWith(r));
    return root !== undefined && sideEffectFree(full.replace(/\/[^/]+$/, ""));
  };
}

/** Runs `deno bundle` of main.ts and finishes the result into `outDir`. */
export async function buildBundle(outDir: string = DEFAULT_OUT): Promise<BundleReport> {
  const started = performance.now();
  await Deno.mkdir(outDir, { recursive: true });
  const path = `${outDir}/${BUNDLE_NAME}`;
  const raw = `${outDir}/.${BUNDLE_NAME}.esbuild`;
  const result = await new Deno.Command(Deno.execPath(), {
    args: bundleArgs(raw),
    cwd: ROOT_DIR,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(result.stderr) + new TextDecoder().decode(result.stdout);
  if (!result.success) {
    await Deno.remove(raw).catch(() => {});
    throw new Error(`deno bundle failed:\n${log.trim()}`);
  }
  const modules = Number(/Bundled (\d+) modules/.exec(log)?.[1] ?? NaN);
  const files: Record<string, string> = {};
  const embedded: BundleReport["embedded"] = [];
  for (const specifier of await byteSpecifiers()) {
    let bytes: Uint8Array;
    try {
      bytes = (await import(specifier, { with: { type: "bytes" } })).default;
    } catch (error) {
      throw new Error(
        `could not read ${specifier} (${String(error).split("\n")[0]}); ` +
          "run `deno install` first",
      );
    }
    files[specifier] = embedBytes(bytes);
    embedded.push({ specifier, bytes: bytes.length, embeddedBytes: files[specifier].length });
  }
  for (const [name, entry] of Object.entries(EMBEDDED_MODULES)) {
    const out = `${outDir}/.${BUNDLE_NAME}.${name.replace(/\W+/g, "_")}.esbuild`;
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--platform=deno", "--minify", "--output", out, entry],
      cwd: ROOT_DIR,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!built.success) {
      await Deno.remove(out).catch(() => {});
      throw new Error(`deno bundle of ${entry} failed:\n${new TextDecoder().decode(built.stderr)}`);
    }
    const bytes = await Deno.readFile(out);
    await Deno.remove(out);
    files[name] = embedBytes(bytes);
    embedded.push({ specifier: name, bytes: bytes.length, embeddedBytes: files[name].length });
  }
  const code = finishBundle(await Deno.readTextFile(raw), files, await eagerModules());
  await Deno.remove(raw);
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, code);
  await Deno.rename(tmp, path);
  return {
    path,
    bytes: (await Deno.stat(path)).size,
    modules,
    ms: Math.round(performance.now() - started),
    embedded,
  };
}

// --- Binaries -----------------------------------------------------------------

/** Deno's cache folder, as `deno info` reports it (honours DENO_DIR). */
export async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error("`deno info --json` failed");
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** Where `deno compile` looks for the cached runtime of `target`. */
export function runtimeZip(dir: string, target: string, version: string = Deno.version.deno) {
  return `${dir}/dl/release/v${version}/denort-${target}.zip`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The one line of `deno compile`'s error output that says what went wrong. */
function failure(stderr: string): string {
  const all = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  const end = all.indexOf("Stack backtrace:");
  const lines = end < 0 ? all : all.slice(0, end);
  const error = lines.find((l) => l.startsWith("error:")) ?? lines.at(-1) ?? "no output";
  const causes = lines.filter((l) => /^\d+: /.test(l)).map((l) => l.replace(/^\d+: /, ""));
  return causes.length ? `${error.replace(/^error: /, "")}: ${causes.at(-1)}` : error;
}

interface CompileOptions {
  targets: string[];
  online: boolean;
  require: boolean;
  dryRun: boolean;
  outDir: string;
}

async function compile(options: CompileOptions): Promise<number> {
  const deno = Deno.execPath();
  const bundle = `${options.outDir}/${BUNDLE_NAME}`;
  if (options.dryRun) {
    console.log(`# first the bundle: deno task bundle --out ${shellQuote(options.outDir)}`);
    for (const target of options.targets) {
      console.log(
        ["deno", ...compileArgs(target, bundle, options.outDir)].map(shellQuote).join(" "),
      );
    }
    return 0;
  }
  const cache = await denoDir();
  const build: string[] = [];
  for (const target of options.targets) {
    const zip = runtimeZip(cache, target);
    if (options.online || options.require || await exists(zip)) build.push(target);
    else {
      console.log(
        `compile: ${target}: skipped, its runtime is not in the Deno cache (${zip}); ` +
          "run with --online to download it",
      );
    }
  }
  if (build.length === 0) {
    console.log("compile: no target has its runtime cached; nothing built");
    return 0;
  }
  const report = await buildBundle(options.outDir);
  console.log(`bundle: ${report.path} (${report.bytes} bytes)`);
  const failed: string[] = [];
  for (const target of build) {
    const output = `${options.outDir}/${binaryName(target)}`;
    const result = await new Deno.Command(deno, {
      args: compileArgs(target, bundle, options.outDir),
      cwd: options.outDir,
      env: { RUST_BACKTRACE: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (result.success && await exists(output)) {
      console.log(`compile: ${target}: ${output} (${(await Deno.stat(output)).size} bytes)`);
    } else {
      console.log(
        `compile: ${target}: FAILED (${failure(new TextDecoder().decode(result.stderr))})`,
      );
      failed.push(target);
    }
  }
  const missing = options.targets.length - build.length + failed.length;
  if (failed.length) return 1;
  if (options.require && missing) return 1;
  return 0;
}

// --- Command line -------------------------------------------------------------

const USAGE = `usage:
  build.ts bundle [--out DIR]
  build.ts compile [--target TARGET]... [--online] [--require] [--dry-run] [--out DIR]
targets: ${TARGETS.join(", ")}`;

function parse(args: string[]): { command: string; options: CompileOptions } {
  const [command, ...rest] = args;
  if (command !== "bundle" && command !== "compile") {
    throw new UsageError(command ? `unknown command ${command}\n${USAGE}` : USAGE);
  }
  const options: CompileOptions = {
    targets: [],
    online: false,
    require: false,
    dryRun: false,
    outDir: DEFAULT_OUT,
  };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined || v.startsWith("--")) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    if (arg === "--out") {
      const dir = value();
      options.outDir = dir.startsWith("/") || /^[A-Za-z]:/.test(dir) ? dir : `${Deno.cwd()}/${dir}`;
    } else if (command === "compile" && arg === "--target") {
      const target = value();
      if (!TARGETS.includes(target)) {
        throw new UsageError(`unknown target ${target}; targets: ${TARGETS.join(", ")}`);
      }
      options.targets.push(target);
    } else if (command === "compile" && arg === "--online") options.online = true;
    else if (command === "compile" && arg === "--require") options.require = true;
    else if (command === "compile" && arg === "--dry-run") options.dryRun = true;
    else throw new UsageError(`unknown option ${arg} for ${command}\n${USAGE}`);
  }
  if (options.targets.length === 0) options.targets = [...TARGETS];
  return { command, options };
}

/** Runs the build command line; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parse(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`build: ${error.message}`);
    return 2;
  }
  const { command, options } = parsed;
  try {
    if (command === "compile") return await compile(options);
    const report = await buildBundle(options.outDir);
    const embedded = report.embedded.reduce((n, e) => n + e.embeddedBytes, 0);
    console.log(
      `bundle: ${report.path}: ${report.bytes} bytes, ${report.modules} modules, ` +
        `${report.embedded.length} files embedded (${embedded} bytes), ${report.ms} ms`,
    );
    console.log(`run it: deno run ${runFlags().join(" ")} ${report.path}`);
    return 0;
  } catch (error) {
    console.error(`build: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
