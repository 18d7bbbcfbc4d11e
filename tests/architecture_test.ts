/**
 * The shape of the code (docs/architecture.md, "Layers"):
 *
 * - no two files import each other, directly or through others: the
 *   relative imports of `lib/`, `mod.ts`, `server.ts` and `main.ts`
 *   (static, type-only and dynamic) form no cycle;
 * - no import climbs: a file imports only files of its own layer or of
 *   layers below it, in the order {@link LAYERS} writes once;
 * - the library entry (`mod.ts`, the package's `.`) loads no command line,
 *   installer or server module, statically or on demand: its whole module
 *   graph (`deno info --json`) holds none of `lib/cli/`, `lib/install/`,
 *   `lib/server/`, `server.ts` or `main.ts`.
 */
import assert from "node:assert/strict";
import { ROOT_DIR } from "./support/process.ts";

/**
 * The layers, bottom up. A layer is a file, or a folder (ending in `/`)
 * holding every file below it that no longer entry names; a file may import
 * its own layer and the layers before it, never one after it.
 *
 * - The ground floor, each file a layer: the vocabulary every room speaks
 *   (errors, trusted values and frontmatter value types, citation records),
 *   then logging, cancellation, the version, YAML, shell quoting, the
 *   command-line flags type, configuration, hints as data, the principal,
 *   and the process-level helpers of `runtime/`.
 * - `net/`, the one door to the network.
 * - `content/`, its sub-rooms in the order they build on each other: HTML
 *   to Markdown, main-content extraction, token counts, the search language
 *   and index, the Document, questions, source code, the conversion the
 *   workers share, the workers, and the pipeline at its root.
 * - `sources/` (first-party APIs, the router, the web path), `render/` (the
 *   headless browser, which reads through the router's cache), `envelope/`,
 *   `shelf/` (it answers in the envelope), `views/` (the request model,
 *   `readPage`, the views), the library's `page.ts`, `tools/`, `server/`,
 *   `install/` (which lists the tools and checks rendering), `cli/`, and the
 *   entries.
 */
const LAYERS: readonly string[] = [
  "lib/errors.ts",
  "lib/trust.ts",
  "lib/citation.ts",
  "lib/log.ts",
  "lib/abort.ts",
  "lib/version.ts",
  "lib/yaml.ts",
  "lib/shell.ts",
  "lib/flags.ts",
  "lib/config.ts",
  "lib/hint.ts",
  "lib/principal.ts",
  "lib/runtime/",
  "lib/net/",
  "lib/content/html/",
  "lib/content/extract/",
  "lib/content/tokens/",
  "lib/content/search/",
  "lib/content/document/",
  "lib/content/question/",
  "lib/content/code/",
  "lib/content/convert/",
  "lib/content/workers/",
  "lib/content/",
  "lib/sources/",
  "lib/render/",
  "lib/envelope/",
  "lib/shelf/",
  "lib/views/",
  "lib/page.ts",
  "lib/tools/",
  "lib/server/",
  "lib/install/",
  "lib/cli/",
  "server.ts",
  "main.ts",
  // Run as a program, the library entry is the program (a dynamic import of main.ts).
  "mod.ts",
];

/** The layer of a repository path: the index of the longest entry of {@link LAYERS} naming it. */
function layerOf(path: string): number | undefined {
  let best: number | undefined;
  LAYERS.forEach((layer, i) => {
    const holds = layer.endsWith("/") ? path.startsWith(layer) : path === layer;
    if (holds && (best === undefined || layer.length > LAYERS[best].length)) best = i;
  });
  return best;
}

/** The TypeScript files of `lib/` and the entries, as repository paths. */
async function sourceFiles(): Promise<string[]> {
  const files = ["mod.ts", "server.ts", "main.ts"];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(`${ROOT_DIR}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) files.push(path);
    }
  };
  await walk("lib");
  return files.sort();
}

// `import ... from "./x"`, `import type ...`, `export ... from "./x"`, and `import("./x")`.
const STATIC =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["'](\.[^"']+)["']/g;
const DYNAMIC = /import\(\s*["'](\.[^"']+)["']/g;

/** The repository files `path` imports by a relative specifier (JSON data left out). */
function importsOf(path: string, text: string): string[] {
  const out = new Set<string>();
  for (const m of [...text.matchAll(STATIC), ...text.matchAll(DYNAMIC)]) {
    const target = new URL(m[1], `file:///${path}`).pathname.slice(1);
    if (!target.endsWith(".json")) out.add(target);
  }
  return [...out];
}

/** Every file's imports. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const path of await sourceFiles()) {
    graph.set(path, importsOf(path, await Deno.readTextFile(`${ROOT_DIR}/${path}`)));
  }
  return graph;
}

/** The strongly connected components of more than one file, or of a file importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

Deno.test("architecture: no file imports itself back, through any path", async () => {
  const graph = await importGraph();
  assert.ok(graph.size > 150, `only ${graph.size} files read`);
  assert.deepEqual(cycles(graph), [], "import cycles");
});

Deno.test("architecture: every file has a layer, and no import climbs to a higher one", async () => {
  const graph = await importGraph();
  const unplaced = [...graph.keys()].filter((f) => layerOf(f) === undefined);
  assert.deepEqual(unplaced, [], "files in no layer of LAYERS");
  const climbs: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const from = layerOf(file)!;
      const to = layerOf(target);
      if (to === undefined || to > from) {
        climbs.push(
          `${file} (${LAYERS[from]}) -> ${target} (${to === undefined ? "?" : LAYERS[to]})`,
        );
      }
    }
  }
  assert.deepEqual(climbs, [], "imports that climb");
});

/**
 * The repository files an import of `root` loads: its module graph
 * (`deno info --json`) followed through static imports, and through dynamic
 * ones too unless `staticOnly` (a dynamic import runs only when its code
 * does, like mod.ts's import of the program when it is run as one).
 */
async function moduleGraph(root: string, staticOnly = false): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: ROOT_DIR,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info: {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: {
        code?: { specifier: string };
        type?: { specifier: string };
        isDynamic?: boolean;
      }[];
    }[];
  } = JSON.parse(new TextDecoder().decode(out.stdout));
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>(info.roots);
  const queue = [...info.roots];
  while (queue.length > 0) {
    for (const d of bySpecifier.get(queue.pop()!)?.dependencies ?? []) {
      if (staticOnly && d.isDynamic) continue;
      for (const s of [d.code?.specifier, d.type?.specifier]) {
        if (s && !seen.has(s)) {
          seen.add(s);
          queue.push(s);
        }
      }
    }
  }
  const prefix = `file://${ROOT_DIR}/`;
  return [...seen].filter((s) => s.startsWith(prefix)).map((s) => s.slice(prefix.length));
}

Deno.test("architecture: the library entry loads no CLI, installer or server module", async () => {
  const graph = await moduleGraph("mod.ts", true);
  assert.ok(graph.includes("lib/page.ts"), `mod.ts's graph: ${graph.join(", ")}`);
  // Run as a program it is the program, through a dynamic import only.
  assert.ok((await moduleGraph("mod.ts")).includes("lib/cli/run.ts"));
  const application = graph.filter((f) =>
    f === "main.ts" || f === "server.ts" || /^lib\/(?:cli|install|server)\//.test(f)
  );
  assert.deepEqual(application, [], "modules of the application in mod.ts's graph");
});
