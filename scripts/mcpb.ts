/**
 * The Claude Desktop extension bundle (MCPB): keeps `mcpb/manifest.json`
 * in step with the server and packs `dist/parkour.mcpb`.
 *
 * ```sh
 * deno task mcpb            # rewrite the manifest's version and tool list
 * deno task mcpb --check    # exit 1 when the manifest is out of date
 * deno task mcpb --pack     # build dist/parkour.mcpb from the compiled binaries
 * ```
 *
 * The version comes from deno.json. The tool list comes from the server's
 * own catalog in the desktop profile with every optional tool on (the
 * Semantic Scholar tool exists only once its licence is accepted, so the
 * catalog is loaded with `S2_ACCEPT_TOS=1`), each described by the first
 * paragraph of its description: the host shows the list on the extension's
 * page, while the model reads the full descriptions from the running
 * server's `tools/list`.
 *
 * The bundle holds the manifest and, under `server/`, the binaries of
 * `deno task compile` (`dist/parkour-<target>[.exe]`): `parkour.exe` for
 * Windows, and for macOS and Linux a `parkour` shell launcher that starts
 * the binary built for the machine (MCPB picks a command per OS only, not
 * per CPU).
 *
 * Options: `--manifest PATH` (default `mcpb/manifest.json`), `--dist DIR`
 * (default `dist`), `--out PATH` (default `<dist>/parkour.mcpb`).
 *
 * @module
 */
import meta from "../deno.json" with { type: "json" };
import { ToolRegistry } from "../lib/tools/registry.ts";
import { writeZip, type ZipEntry } from "./zip.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");

/** The manifest's default place. */
export const MANIFEST_PATH = `${ROOT}/mcpb/manifest.json`;

/** Targets of `deno task compile` whose binaries go into the bundle, by file in `server/`. */
export const BUNDLE_BINARIES: Record<string, string> = {
  "parkour-x86_64-unknown-linux-gnu": "parkour-x86_64-unknown-linux-gnu",
  "parkour-aarch64-unknown-linux-gnu": "parkour-aarch64-unknown-linux-gnu",
  "parkour-x86_64-apple-darwin": "parkour-x86_64-apple-darwin",
  "parkour-aarch64-apple-darwin": "parkour-aarch64-apple-darwin",
  "parkour.exe": "parkour-x86_64-pc-windows-msvc.exe",
};

/** `server/parkour` on macOS and Linux: starts the binary built for this OS and CPU. */
export const LAUNCHER = `#!/bin/sh
# Starts the parkour binary built for this machine (MCPB chooses a command per OS, not per CPU).
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
case "$(uname -s)" in
  Darwin) os=apple-darwin ;;
  Linux) os=unknown-linux-gnu ;;
  *) echo "parkour: no binary for $(uname -s) in this bundle" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) cpu=x86_64 ;;
  arm64 | aarch64) cpu=aarch64 ;;
  *) echo "parkour: no binary for $(uname -m) in this bundle" >&2; exit 1 ;;
esac
exec "$dir/parkour-$cpu-$os" "$@"
`;

/** A tool as the manifest lists it. */
export interface ManifestTool {
  /** Name in the desktop profile. */
  name: string;
  /** First paragraph of its description, on one line. */
  description: string;
}

/** The first paragraph of a tool description, its line breaks made spaces. */
export function summary(description: string): string {
  const first = description.trim().split(/\n\s*\n/)[0];
  return first.replace(/\s+/g, " ").trim();
}

/**
 * The tools the server lists in the desktop profile with every optional
 * tool on, in `tools/list` order.
 */
export async function catalogTools(): Promise<ManifestTool[]> {
  // The catalog decides at import time whether the Semantic Scholar tool exists.
  Deno.env.set("S2_ACCEPT_TOS", "1");
  const { TOOLS } = await import("../lib/tools/catalog.ts");
  // Every setting is filled in where the extension runs: each tool as configured, and the
  // actions that change data on (enable_mutating_tools).
  return new ToolRegistry(TOOLS, "desktop", { assumeConfigured: true, mutating: true }).list()
    .map((t) => ({
      name: t.name,
      description: summary(t.description),
    }));
}

/** The manifest text with `version` and `tools` replaced, formatted as committed. */
export function regenerate(text: string, version: string, tools: ManifestTool[]): string {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new Error(`the manifest is not valid JSON (${(error as Error).message})`);
  }
  if (!manifest || typeof manifest !== "object" || Array.isArray(manifest)) {
    throw new Error("the manifest is not a JSON object");
  }
  manifest.version = version;
  manifest.tools = tools;
  return JSON.stringify(manifest, null, 2) + "\n";
}

/** What differs between two manifest texts, in words (for `--check`). */
function difference(current: string, fresh: string): string {
  try {
    const a = JSON.parse(current);
    const b = JSON.parse(fresh);
    const parts: string[] = [];
    if (a.version !== b.version) parts.push(`version ${a.version} should be ${b.version}`);
    const names = (m: { tools?: { name: string }[] }) =>
      (m.tools ?? []).map((t) => t.name).join(",");
    if (names(a) !== names(b)) parts.push("the tool names or their order differ from the server's");
    else if (JSON.stringify(a.tools) !== JSON.stringify(b.tools)) {
      parts.push("tool descriptions differ from the server's");
    }
    return parts.length ? parts.join("; ") : "formatting differs";
  } catch {
    return "it is not valid JSON";
  }
}

interface Options {
  check: boolean;
  pack: boolean;
  manifest: string;
  dist: string;
  out?: string;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    check: false,
    pack: false,
    manifest: MANIFEST_PATH,
    dist: `${ROOT}/dist`,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "") throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === "--check") options.check = true;
    else if (flag === "--pack") options.pack = true;
    else if (flag === "--manifest") options.manifest = value();
    else if (flag === "--dist") options.dist = value().replace(/\/$/, "");
    else if (flag === "--out") options.out = value();
    else {
      throw new UsageError(
        `unknown argument '${arg}'; use --check, --pack, --manifest PATH, --dist DIR, --out PATH`,
      );
    }
  }
  if (options.check && options.pack) throw new UsageError("use --check or --pack, not both");
  return options;
}

class UsageError extends Error {}

async function readManifest(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new Error(`cannot read the manifest ${path} (${(error as Error).message})`);
  }
}

/** Builds the bundle at `out` from the fresh manifest and the binaries in `dist`. */
async function pack(
  manifest: string,
  manifestPath: string,
  dist: string,
  out: string,
): Promise<void> {
  const missing: string[] = [];
  const entries: ZipEntry[] = [{
    name: "manifest.json",
    source: new TextEncoder().encode(manifest),
  }];
  const icon = (JSON.parse(manifest) as { icon?: unknown }).icon;
  if (typeof icon === "string" && icon) {
    const path = `${manifestPath.replace(/[\\/][^\\/]*$/, "")}/${icon}`;
    try {
      await Deno.stat(path);
      entries.push({ name: icon, source: path });
    } catch {
      missing.push(path);
    }
  }
  entries.push({ name: "server/parkour", source: new TextEncoder().encode(LAUNCHER), mode: 0o755 });
  for (const [inBundle, built] of Object.entries(BUNDLE_BINARIES)) {
    const path = `${dist}/${built}`;
    try {
      if (!(await Deno.stat(path)).isFile) throw new Error("not a file");
      entries.push({ name: `server/${inBundle}`, source: path, mode: 0o755 });
    } catch {
      missing.push(path);
    }
  }
  if (missing.length) {
    throw new Error(
      `cannot pack the bundle; missing:\n${
        missing.map((m) => `  ${m}`).join("\n")
      }\nbuild the binaries with \`deno task compile\` (it downloads Deno's runtime for each target)`,
    );
  }
  await Deno.mkdir(out.replace(/[\\/][^\\/]*$/, "") || ".", { recursive: true });
  await writeZip(out, entries);
}

/** Runs the script; resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(args);
  } catch (error) {
    console.error(`mcpb: ${(error as Error).message}`);
    return 2;
  }
  try {
    const current = await readManifest(options.manifest);
    const fresh = regenerate(current, meta.version, await catalogTools());
    if (options.check) {
      if (current === fresh) {
        console.log(`${options.manifest} is up to date`);
        return 0;
      }
      console.error(
        `mcpb: ${options.manifest} is out of date (${
          difference(current, fresh)
        }); run \`deno task mcpb\``,
      );
      return 1;
    }
    if (options.pack) {
      const out = options.out ?? `${options.dist}/parkour.mcpb`;
      await pack(fresh, options.manifest, options.dist, out);
      console.log(`wrote ${out}`);
      return 0;
    }
    if (current === fresh) {
      console.log(`${options.manifest} is up to date`);
    } else {
      await Deno.writeTextFile(options.manifest, fresh);
      console.log(`updated ${options.manifest}`);
    }
    return 0;
  } catch (error) {
    console.error(`mcpb: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
