/**
 * The shared folder of real captures (never committed), from
 * PARKOUR_SHARED_DIR. Undefined when the variable is unset or names a
 * folder that does not exist, so tests that need it skip visibly.
 */
export function sharedDir(): string | undefined {
  const dir = Deno.env.get("PARKOUR_SHARED_DIR");
  if (!dir) return undefined;
  try {
    return Deno.statSync(`${dir}/fixtures/real`).isDirectory ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The bytes of a gzipped file, inflated. */
export async function gunzipFile(path: string): Promise<Uint8Array> {
  const gz = await Deno.readFile(path);
  return new Uint8Array(
    await new Response(
      new Blob([gz as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip")),
    ).arrayBuffer(),
  );
}

/** `bytes` gzipped, as the shared folder stores its pages (`<name>.html.gz`). */
export async function gzipBytes(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await new Response(
      new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
}

/** Whether a file or folder is at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** The HTML of one of the shared real pages (`pep_8`, `ecma262`, `whatwg_html`). */
export async function realPageHtml(name: string): Promise<string> {
  const dir = sharedDir();
  if (!dir) throw new Error("set PARKOUR_SHARED_DIR to the shared folder to read the real pages");
  return new TextDecoder().decode(await gunzipFile(`${dir}/fixtures/real/${name}.html.gz`));
}
