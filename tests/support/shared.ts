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
