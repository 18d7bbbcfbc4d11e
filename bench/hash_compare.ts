/**
 * `--compare A B` of the hash benchmarks (`conversion_hashes.ts`,
 * `question_hashes.ts`): reads two of their JSON files, names every key
 * whose value differs, prints how many are identical and exits 1 when any
 * differs.
 *
 * @module
 */

/**
 * Compares the hash files `paths` (two), their values read through `hash`,
 * and exits: 0 when every key is identical, 1 otherwise. `noun` names what a
 * key is in the summary line.
 */
export async function compareHashFiles<T>(
  paths: string[],
  hash: (value: T | undefined) => string | undefined,
  noun: string,
): Promise<never> {
  const [a, b] = await Promise.all(
    paths.map(async (p) => JSON.parse(await Deno.readTextFile(p)) as Record<string, T>),
  );
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const differ = keys.filter((k) => hash(a[k]) !== hash(b[k]));
  for (const k of differ) console.log(`differs: ${k}`);
  console.log(`${keys.length - differ.length} of ${keys.length} ${noun} identical`);
  Deno.exit(differ.length === 0 ? 0 : 1);
}
