/**
 * The launch line: which `deno run` permission flags each feature needs, and
 * the command that starts this installation of the server. One source for
 * the `start` task, the lines `install` writes into MCP clients, the flags
 * baked into compiled binaries and the README's permission table.
 *
 * The network layer refuses private and reserved addresses itself; the
 * `--deny-net` list repeats that refusal at the socket, so a bug above it
 * still cannot reach the machine's own services or the local network. Deno
 * checks the list against the address a connection actually goes to, after
 * name resolution. Name resolution goes through the OS resolver
 * (getaddrinfo), whose own traffic to the DNS server is not subject to the
 * list, so a resolver inside a denied range (127.0.0.53, 10.x) keeps working.
 *
 * @module
 */
import { envFlag } from "../config.ts";
import { shellQuote } from "../shell.ts";

/**
 * Networks refused at the socket: every private, loopback, link-local,
 * carrier-grade-NAT and "this network" IPv4 range, and the IPv6 loopback
 * (Deno accepts IPv4 CIDR but only exact IPv6 addresses).
 */
export const DENIED_NETWORKS: readonly string[] = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "[::1]",
];

/**
 * Entries left out of the list when the server binds a port (`serve --http`):
 * loopback, and `0.0.0.0` (all interfaces). A connection to them is still
 * refused by the network layer.
 */
export const BIND_NETWORKS: readonly string[] = ["0.0.0.0/8", "127.0.0.0/8", "[::1]"];

/**
 * The entry left out of the list when rendering: the renderer's proxy
 * listens on 127.0.0.1, and Deno's permissions cannot tell listening from
 * connecting (a denied network refuses both, and revoking one host of a
 * broad grant has no effect). The proxy and the network layer still refuse
 * loopback targets; `0.0.0.0/8` and `[::1]` stay denied at the socket.
 */
export const RENDER_NETWORKS: readonly string[] = ["127.0.0.0/8"];

/**
 * Unstable features the server uses: request signals that abort only on
 * disconnect (HTTP), Deno KV (the `kv` shelf) and byte imports (tree-sitter
 * grammars).
 */
export const UNSTABLE_FLAGS: readonly string[] = [
  "--unstable-no-legacy-abort",
  "--unstable-kv",
  "--unstable-raw-imports",
];

/** Environment the renderer needs (Playwright's `is-wsl` probe, a private temp folder). */
export function renderEnv(tmpDir: string): Record<string, string> {
  return { __IS_WSL_TEST__: "1", TMPDIR: tmpDir };
}

/** What the launched server must be able to do, beyond fetching public URLs. */
export interface LaunchOptions {
  /**
   * `stdio` (default) denies every network in {@link DENIED_NETWORKS};
   * `http` leaves {@link BIND_NETWORKS} out so the server can bind its port
   * (the network layer still refuses those targets).
   */
  mode?: "stdio" | "http";
  /** Folder of credential files (`~/.config/parkour`): read access. */
  configDir?: string;
  /**
   * The program's own folder (a source checkout: `main.ts`, `lib/`): read
   * access, which the conversion workers need to load their modules
   * (`lib/content/workers/pool.ts`); without it large pages convert on the
   * main thread. npm packages stay in Deno's cache (no `node_modules/`).
   */
  programDir?: string;
  /** Deno KV file of a persistent shelf: read and write on its folder. */
  kvPath?: string;
  /**
   * Headless rendering: the browser executables Deno may start, the paths
   * Playwright reads to find them (default: the executables), and a
   * private temporary folder; `browser` (written as `PARKOUR_CHROMIUM`)
   * when the browser is not one the renderer finds by itself. Loopback
   * ({@link RENDER_NETWORKS}) leaves `--deny-net` for the renderer's proxy.
   */
  render?: { executables: string[]; readPaths?: string[]; tmpDir: string; browser?: string };
  /** Keep private networks reachable at the socket (for `MCP_ALLOW_PRIVATE_IPS=1`). */
  allowPrivate?: boolean;
  /** Further files to read (doctor: the MCP clients' configuration files). */
  readFiles?: string[];
  /**
   * `--quiet`: Deno prints none of its own lines (npm downloads, their
   * progress bar, warnings); errors still show. The task lines a person runs
   * have it; the lines written into MCP clients keep Deno's output for the
   * client's log.
   */
  quiet?: boolean;
}

/** Flags and environment of a launch line. */
export interface Permissions {
  /** `deno run` flags, in a stable order. */
  flags: string[];
  /** Environment variables the launch line sets. */
  env: Record<string, string>;
}

/** The parent folder of a path (either separator). */
export function parentDir(path: string): string {
  const i = path.replace(/[\\/]+$/, "").search(/[\\/][^\\/]*$/);
  return i < 0 ? "." : i === 0 ? path.slice(0, 1) : path.slice(0, i);
}

/**
 * The narrowest `deno run` flags for the features in `options`.
 *
 * ```ts
 * permissions({}).flags;
 * // ["--no-prompt", "--unstable-no-legacy-abort", "--unstable-kv",
 * //  "--unstable-raw-imports", "--allow-env", "--allow-net", "--deny-net=0.0.0.0/8,..."]
 * ```
 */
export function permissions(options: LaunchOptions = {}): Permissions {
  const flags = [
    "--no-prompt",
    ...(options.quiet ? ["--quiet"] : []),
    ...UNSTABLE_FLAGS,
    "--allow-env",
    "--allow-net",
  ];
  if (!options.allowPrivate) {
    const open = [
      ...(options.mode === "http" ? BIND_NETWORKS : []),
      ...(options.render ? RENDER_NETWORKS : []),
    ];
    const deny = DENIED_NETWORKS.filter((n) => !open.includes(n));
    flags.push(`--deny-net=${deny.join(",")}`);
  }
  const read: string[] = [];
  const write: string[] = [];
  const env: Record<string, string> = {};
  if (options.configDir) read.push(options.configDir);
  if (options.programDir) read.push(options.programDir);
  if (options.readFiles) read.push(...options.readFiles);
  if (options.kvPath) {
    const dir = parentDir(options.kvPath);
    read.push(dir);
    write.push(dir);
  }
  if (options.render) {
    const { executables, tmpDir } = options.render;
    flags.push("--allow-sys=homedir", `--allow-run=${executables.join(",")}`);
    read.push(...(options.render.readPaths ?? executables), tmpDir);
    write.push(tmpDir);
    Object.assign(env, renderEnv(tmpDir));
    if (options.render.browser) env.PARKOUR_CHROMIUM = options.render.browser;
  }
  const unique = (list: string[]) => [...new Set(list)];
  if (read.length) flags.push(`--allow-read=${unique(read).join(",")}`);
  if (write.length) flags.push(`--allow-write=${unique(write).join(",")}`);
  return { flags, env };
}

/** How this copy of the server is run. */
export type Installation =
  | {
    /** `deno run` on a script: a local file, a bundle, or a `jsr:` specifier. */
    kind: "script";
    /** The Deno executable: an absolute path (or its PATH entry, see `stableInstallation`). */
    deno: string;
    /**
     * When Deno came from npx (`npx -y deno@VERSION`): that package spec,
     * `deno@VERSION`, for the commands a person types. `deno` is then the
     * binary in npx's cache.
     */
    npx?: string;
    /** The script: an absolute path or a `jsr:` specifier. */
    script: string;
  }
  | {
    /** A standalone executable from `deno compile`, permissions baked in. */
    kind: "binary";
    /** Its absolute path. */
    path: string;
  };

/**
 * Works out how the running process was started, so `install` writes this
 * installation's own launch line. `mainModule` and `execPath` default to the
 * running process's.
 */
export function currentInstallation(
  mainModule: string = Deno.mainModule,
  execPath: string = Deno.execPath(),
  denoVersion: string = Deno.version.deno,
): Installation {
  if (/[\\/]deno-compile-/.test(decodeURIComponent(mainModule))) {
    return { kind: "binary", path: execPath };
  }
  const jsr = mainModule.match(/^https:\/\/jsr\.io\/(@[^/]+\/[^/]+)\/([^/]+)\//);
  // The package's program is its `./cli` entry (the `.` entry is the library).
  const script = jsr
    ? `jsr:${jsr[1]}@${jsr[2]}/cli`
    : mainModule.startsWith("file:")
    ? decodeURIComponent(new URL(mainModule).pathname).replace(/^\/([A-Za-z]:)/, "$1")
    : mainModule;
  // Deno run through `npx -y deno@X` is the binary in npx's cache
  // (~/.npm/_npx/<hash of the spec>/node_modules/deno/deno). A launch line
  // names that file: an MCP client started from a dock or menu has no shell
  // PATH, so neither `npx` nor the `node` its script starts with may be found
  // there. Should npm's cache be removed, any `npx -y deno@X` command puts
  // the binary back at the same path (the folder is named by a hash of the
  // spec); `doctor` notices an entry whose Deno is gone.
  if (/[\\/]_npx[\\/]/.test(execPath)) {
    return { kind: "script", deno: execPath, npx: `deno@${denoVersion}`, script };
  }
  return { kind: "script", deno: execPath, script };
}

/**
 * Flags baked into compiled binaries: the stdio server's, plus read, write,
 * run and `sys=homedir` for `install`, `doctor` and rendering; `serve`
 * drops them again (`dropPrivileges` in `lib/runtime/privileges.ts`).
 */
export function binaryFlags(): string[] {
  return [
    ...permissions({ mode: "stdio" }).flags,
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-sys=homedir",
  ];
}

/** Whether `serve` should give up permissions: in a compiled binary, or when asked. */
export function dropWanted(): boolean {
  if (envFlag("PARKOUR_DROP_PRIVILEGES")) return true;
  try {
    return currentInstallation().kind === "binary";
  } catch {
    return false;
  }
}

/** A command an MCP client runs to start the server. */
export interface LaunchCommand {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Environment variables to set (may be empty). */
  env: Record<string, string>;
}

/**
 * The command starting `installation` as a stdio MCP server with the
 * permissions of `options`, followed by `serverArgs` (such as
 * `["--profile", "code"]`). Binaries carry their flags inside, so only the
 * environment applies to them.
 */
export function launchCommand(
  installation: Installation,
  options: LaunchOptions = {},
  serverArgs: string[] = [],
): LaunchCommand {
  // A source checkout's own folder, so the conversion workers can load (not a bundle or jsr:).
  const programDir = options.programDir ??
    (installation.kind === "script" && /[\\/]main\.ts$/.test(installation.script)
      ? parentDir(installation.script)
      : undefined);
  const { flags, env } = permissions({ ...options, programDir });
  const args = ["serve", ...serverArgs];
  if (installation.kind === "binary") return { command: installation.path, args, env };
  return {
    command: installation.deno,
    args: ["run", ...flags, installation.script, ...args],
    env,
  };
}

export { shellQuote };

/** A launch command as one shell line (environment assignments first). */
export function commandLine(command: LaunchCommand): string {
  const env = Object.entries(command.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...env, command.command, ...command.args].map((w, i) =>
    i < env.length ? w : shellQuote(w)
  ).join(" ");
}
