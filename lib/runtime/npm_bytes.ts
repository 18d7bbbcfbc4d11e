/**
 * Files of npm packages as bytes, without read permission where the
 * process may import them as modules (`--unstable-raw-imports`): the
 * tree-sitter runtime and grammars, the o200k tokenizer's ranks.
 *
 * @module
 */
/** The error of a bytes import in a process without `--unstable-raw-imports`. */
export const RAW_IMPORTS_OFF: RegExp = /not a valid module type|raw-imports/i;

/**
 * A file of an npm package (`npm:name@version/path`) as bytes, imported as
 * a module (`--unstable-raw-imports`): no read permission needed, from
 * `node_modules` or Deno's npm cache alike. The specifier is built at run
 * time because `deno publish` refuses static bytes imports.
 *
 * A registry copy (`jsr:`) has no import map: a package that no import
 * names literally is not installed, and a bytes import does not install it
 * (Deno: "Could not find constraint"), but a JSON import of its
 * package.json does; the bytes are then imported again. Without the flag,
 * the file is read where Node's resolution finds it, when this process may
 * read it (`-A`); otherwise the import's own error is thrown
 * ({@link RAW_IMPORTS_OFF} recognises it).
 */
export async function npmBytes(specifier: string): Promise<Uint8Array> {
  try {
    return await importBytes(specifier);
  } catch (error) {
    const flagOff = RAW_IMPORTS_OFF.test(String(error));
    const m = /^npm:\/?((?:@[^/]+\/)?[^/@]+)(@[^/]+)?\/(.+)$/.exec(specifier);
    if (!m || !(flagOff || NOT_INSTALLED.test(String(error)))) throw error;
    const [, name, version = "", file] = m;
    const manifest = `npm:${name}${version}/package.json`;
    // Fails harmlessly for a package whose exports hide it (and which is installed anyway).
    await import(manifest, { with: { type: "json" } }).catch(() => {});
    if (!flagOff) return await importBytes(specifier);
    const { createRequire } = await import("node:module");
    // A remote module (a registry copy) has no folder of its own to resolve from.
    const require = createRequire(import.meta.url.startsWith("file:") ? import.meta.url : "/");
    let path: string;
    try {
      path = require.resolve(`${name}/${file}`);
    } catch {
      throw error;
    }
    if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") throw error;
    return await Deno.readFile(path);
  }
}

/** The error of a bytes import from a package this process has not installed. */
const NOT_INSTALLED = /in the list of packages/i;

async function importBytes(specifier: string): Promise<Uint8Array> {
  // A plain variable as the specifier: the bundle build rewrites exactly this shape.
  return (await import(specifier, { with: { type: "bytes" } })).default;
}
