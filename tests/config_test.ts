/**
 * The two configurations: deno.json (the product: what `deno task` installs
 * on a first run, and what the JSR package declares) holds only packages the
 * product's code uses, and deno.dev.json adds what tests and benchmarks use,
 * with a lockfile of its own, so a first run of the README's command does not
 * download the conformance suite, the benchmark baselines or the test
 * clients. And the README's first command, run as written, prints the
 * answer and nothing else.
 */
import assert from "node:assert/strict";
import product from "../deno.json" with { type: "json" };
import dev from "../deno.dev.json" with { type: "json" };
import { childEnv, ROOT_DIR } from "./support/process.ts";

/** `name@version` of an `npm:` import map value (`npm:/@scope/pkg@1.2.3/`, `npm:pkg@1/sub`). */
function specOf(value: string): { name: string; version: string } {
  const m = /^npm:\/?((?:@[^/]+\/)?[^/@]+)@([^/]+)/.exec(value);
  assert.ok(m, `not an npm: value: ${value}`);
  return { name: m[1], version: m[2] };
}

/** The package of an `npm:` import map value. */
const packageOf = (value: string): string => specOf(value).name;

/** The text of every product source file: main.ts, mod.ts, server.ts, lib/, scripts/. */
async function productSources(): Promise<string> {
  const texts: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(`${ROOT_DIR}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        texts.push(await Deno.readTextFile(`${ROOT_DIR}/${path}`));
      }
    }
  }
  for (const file of ["main.ts", "mod.ts", "server.ts"]) {
    texts.push(await Deno.readTextFile(`${ROOT_DIR}/${file}`));
  }
  await walk("lib");
  await walk("scripts");
  return texts.join("\n");
}

Deno.test("config: deno.json names only packages the product's code uses", async () => {
  const sources = await productSources();
  for (const [key, value] of Object.entries(product.imports)) {
    const name = packageOf(value);
    // A bare import of the key, or the package named in a specifier built at run time.
    const used = sources.includes(`"${key}`) || sources.includes(name);
    assert.ok(
      used,
      `deno.json imports ${key}, which no product file uses: move it to deno.dev.json`,
    );
  }
});

Deno.test("config: deno.dev.json is deno.json's packages and settings plus the development ones", async () => {
  const sources = await productSources();
  const devImports: Record<string, string> = dev.imports;
  const productPackages = new Set(Object.values(product.imports).map(packageOf));
  for (const [key, value] of Object.entries(product.imports)) {
    assert.equal(devImports[key], value, `deno.dev.json's ${key} differs from deno.json's`);
  }
  for (const [key, value] of Object.entries(devImports)) {
    if (key in product.imports) continue;
    // A development package the product imported would be missing from a user's install.
    const name = packageOf(value);
    if (productPackages.has(name)) continue; // another entry point of a product package
    assert.ok(
      !new RegExp(`["/]${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}["/@]`).test(sources),
      `product code names ${name}, which only deno.dev.json has`,
    );
  }
  assert.deepEqual(dev.unstable, product.unstable);
  assert.deepEqual(dev.compilerOptions, product.compilerOptions);
  assert.equal(dev.nodeModulesDir, product.nodeModulesDir);
  assert.deepEqual(dev.allowScripts, product.allowScripts);
  assert.deepEqual(dev.exclude, product.exclude);
  assert.equal(dev.lock, "deno.dev.lock");
});

Deno.test("config: deno.lock holds the product's packages, deno.dev.lock the same and more", async () => {
  const lock = JSON.parse(await Deno.readTextFile(`${ROOT_DIR}/deno.lock`));
  const devLock = JSON.parse(await Deno.readTextFile(`${ROOT_DIR}/deno.dev.lock`));
  const declared = (imports: Record<string, string>) =>
    [...new Set(Object.values(imports).map(specOf).map((s) => `npm:${s.name}@${s.version}`))]
      .sort();
  assert.deepEqual([...lock.workspace.dependencies].sort(), declared(product.imports));
  assert.deepEqual([...devLock.workspace.dependencies].sort(), declared(dev.imports));
  for (const [id, entry] of Object.entries(lock.npm)) {
    assert.deepEqual(devLock.npm[id], entry, `deno.dev.lock's ${id} differs from deno.lock's`);
  }
  // Nothing only the tests use reaches a user: not the conformance suite, nor its server stack.
  for (const id of Object.keys(lock.npm)) {
    assert.doesNotMatch(
      id,
      /^(@modelcontextprotocol\/(conformance|client|sdk)|express|autocannon|fast-check|turndown|linkedom)@/,
    );
  }
});

Deno.test("config: the README's first command, as written, prints the outline and nothing else", async () => {
  const readme = await Deno.readTextFile(`${ROOT_DIR}/README.md`);
  const first = /```sh runnable\n(.*)\n```/.exec(readme)?.[1];
  assert.ok(first, "README has a runnable command");
  const words = first.split(" ");
  assert.deepEqual(words.slice(0, 3), ["npx", "-y", `deno@${Deno.version.deno}`]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: words.slice(3),
    cwd: ROOT_DIR,
    env: childEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  assert.equal(dec.decode(out.stderr), "", "no task line, download or warning on stderr");
  assert.match(dec.decode(out.stdout), /total_sections: 6/);
});
