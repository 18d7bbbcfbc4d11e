/**
 * The shape of the code (docs/architecture.md, "Layers"):
 *
 * - the library entry (`mod.ts`, the package's `.`) loads no command line,
 *   installer or server module, statically or on demand: its whole module
 *   graph (`deno info --json`) holds none of `lib/cli/`, `lib/install/`,
 *   `lib/server/` or `main.ts`.
 */
import assert from "node:assert/strict";
import { ROOT_DIR } from "./support/process.ts";

/** The repository files in the module graph of `root` (static and dynamic imports). */
async function moduleGraph(root: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: ROOT_DIR,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info: { modules: { specifier: string }[] } = JSON.parse(
    new TextDecoder().decode(out.stdout),
  );
  const prefix = `file://${ROOT_DIR}/`;
  return info.modules.map((m) => m.specifier).filter((s) => s.startsWith(prefix))
    .map((s) => s.slice(prefix.length));
}

Deno.test("architecture: the library entry loads no CLI, installer or server module", async () => {
  const graph = await moduleGraph("mod.ts");
  assert.ok(graph.includes("lib/page.ts"), `mod.ts's graph: ${graph.join(", ")}`);
  const application = graph.filter((f) =>
    f === "main.ts" || f === "server.ts" || /^lib\/(?:cli|install|server)\//.test(f)
  );
  assert.deepEqual(application, [], "modules of the application in mod.ts's graph");
});
