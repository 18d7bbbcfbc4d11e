/**
 * A JSR registry on 127.0.0.1 for end-to-end tests of `jsr:@parkour/mcp`.
 *
 * It speaks both halves of the protocol Deno uses (`cli/tools/publish` and
 * `cli/jsr.rs` in denoland/deno, with `JSR_URL` pointing at it):
 *
 * - the publishing API under `/api/`: `deno publish --token ...` checks that
 *   the version is new (`GET /api/scopes/<scope>/packages/<name>/versions/<v>`,
 *   404), that the package exists (`GET .../packages/<name>`, 200), and
 *   uploads its gzipped tarball (`POST .../versions/<v>?config=/deno.json`),
 *   which the registry answers with a finished publishing task;
 * - the package files as Deno fetches them: `/@scope/name/meta.json` (the
 *   versions), `/@scope/name/<v>_meta.json` (the exports of the uploaded
 *   deno.json and the manifest: every file's size and `sha256-<hex>`
 *   checksum, which Deno verifies) and `/@scope/name/<v>/<path>`.
 *
 * So the files a test runs are the bytes `deno publish` uploads (its include
 * and exclude rules, its rewriting of import-map names to `npm:` specifiers),
 * not a copy of the checkout.
 */

/** A package version as uploaded: file path (`/mod.ts`) to its bytes. */
export type PackageFiles = Map<string, Uint8Array>;

/** A running registry. */
export interface Registry {
  /** Its base URL (what `JSR_URL` is set to), without a trailing slash. */
  url: string;
  /** Uploaded packages by `@scope/name@version`. */
  packages: Map<string, PackageFiles>;
  /** Requests for package files, in order (paths), for assertions. */
  requests: string[];
  /** Stops the server. */
  close(): Promise<void>;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The files of a gzipped tar archive (regular files; GNU long names honoured). */
export async function untarGz(gz: Uint8Array<ArrayBuffer>): Promise<PackageFiles> {
  const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
  const tar = new Uint8Array(await new Response(stream).arrayBuffer());
  const text = (b: Uint8Array) => new TextDecoder().decode(b).replace(/\0.*$/s, "");
  const files: PackageFiles = new Map();
  let longName: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(text(header.subarray(124, 136)).trim() || "0", 8);
    const type = String.fromCharCode(header[156] || 48);
    const prefix = text(header.subarray(345, 500));
    const body = tar.slice(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = text(body);
      continue;
    }
    let name = longName ??
      (prefix && !header.subarray(257, 263).every((b) => b === 0)
        ? `${prefix}/${text(header.subarray(0, 100))}`
        : text(header.subarray(0, 100)));
    longName = undefined;
    if (type !== "0" && type !== "\0") continue;
    name = name.replace(/^\.?\/?/, "/");
    files.set(name, body);
  }
  return files;
}

const TYPES: Record<string, string> = {
  ts: "application/typescript; charset=utf-8",
  mts: "application/typescript; charset=utf-8",
  tsx: "text/tsx; charset=utf-8",
  js: "application/javascript; charset=utf-8",
  mjs: "application/javascript; charset=utf-8",
  json: "application/json; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  wasm: "application/wasm",
};

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });

/** Starts an empty registry on 127.0.0.1 (a free port). */
export function startRegistry(): Registry {
  const packages = new Map<string, PackageFiles>();
  const requests: string[] = [];
  const metas = new Map<string, Promise<unknown>>();

  const versionMeta = (key: string, files: PackageFiles): Promise<unknown> => {
    let meta = metas.get(key);
    if (!meta) {
      meta = (async () => {
        const manifest: Record<string, { size: number; checksum: string }> = {};
        for (const [path, bytes] of [...files].sort(([a], [b]) => a < b ? -1 : 1)) {
          manifest[path] = {
            size: bytes.length,
            checksum: `sha256-${await sha256(bytes as Uint8Array<ArrayBuffer>)}`,
          };
        }
        const config = files.get("/deno.json") ?? files.get("/jsr.json");
        const exports = config ? JSON.parse(new TextDecoder().decode(config)).exports : {};
        return {
          manifest,
          exports: typeof exports === "string" ? { ".": exports } : exports,
        };
      })();
      metas.set(key, meta);
    }
    return meta;
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    // --- publishing API ---
    const api = /^\/api\/scopes\/([^/]+)\/packages\/([^/]+)(?:\/versions\/([^/]+))?$/.exec(path);
    if (api) {
      const [, scope, name, version] = api;
      const key = `@${scope}/${name}@${version}`;
      if (req.method === "GET" && version === undefined) {
        return json({ scope, name });
      }
      if (req.method === "GET") {
        return packages.has(key)
          ? json({ scope, package: name, version })
          : json({ code: "packageVersionNotFound", message: "not found" }, 404);
      }
      if (req.method === "POST") {
        const body = new Uint8Array(await req.arrayBuffer());
        packages.set(key, await untarGz(body));
        return json({ id: crypto.randomUUID(), status: "success", error: null });
      }
    }
    if (path.startsWith("/api/")) {
      return json({ code: "notFound", message: `no such API route: ${path}` }, 404);
    }
    // --- package files ---
    requests.push(path);
    const pkg = /^\/(@[^/]+\/[^/]+)\/(.*)$/.exec(path);
    if (!pkg) return new Response("not found", { status: 404 });
    const [, id, rest] = pkg;
    const versions = [...packages.keys()].filter((k) => k.startsWith(`${id}@`)).map((k) =>
      k.slice(id.length + 1)
    );
    if (rest === "meta.json") {
      if (!versions.length) return new Response("not found", { status: 404 });
      const [scope, name] = id.slice(1).split("/");
      return json({
        scope,
        name,
        latest: versions.at(-1),
        versions: Object.fromEntries(
          versions.map((v) => [v, { createdAt: "2026-01-01T00:00:00.000Z" }]),
        ),
      });
    }
    const metaFile = /^([^/]+)_meta\.json$/.exec(rest);
    if (metaFile) {
      const files = packages.get(`${id}@${metaFile[1]}`);
      return files
        ? json(await versionMeta(`${id}@${metaFile[1]}`, files))
        : new Response("not found", { status: 404 });
    }
    const file = /^([^/]+)(\/.*)$/.exec(rest);
    const bytes = file && packages.get(`${id}@${file[1]}`)?.get(file[2]);
    if (!bytes) return new Response("not found", { status: 404 });
    const ext = file[2].split(".").pop() ?? "";
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": TYPES[ext] ?? "application/octet-stream" },
    });
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    packages,
    requests,
    close: () => server.shutdown(),
  };
}

/**
 * Runs `deno publish` of the checkout `dir` against `registry` (a token, no
 * provenance, uncommitted changes allowed) and returns the uploaded files.
 * Types are not checked (`deno task publish:check` does that, and the
 * upload is the same either way), which spares the other tests a minute of
 * CPU. Throws with the command's output when it fails.
 */
export async function publishTo(
  registry: Registry,
  dir: string,
  env: Record<string, string> = {},
): Promise<{ id: string; files: PackageFiles; log: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--token", "test-token", "--allow-dirty", "--no-provenance", "--no-check"],
    cwd: dir,
    env: { NO_COLOR: "1", JSR_URL: registry.url, DISABLE_JSR_PROVENANCE: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`deno publish failed (exit ${out.code}):\n${log}`);
  const [id, files] = [...registry.packages].at(-1) ?? [];
  if (!id || !files) throw new Error(`deno publish uploaded nothing:\n${log}`);
  return { id, files, log };
}
