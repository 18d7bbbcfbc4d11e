/**
 * Where each MCP client keeps its server list and what an entry looks like
 * there. Path resolution is a pure function of the operating system, the
 * home folder and the environment, so the macOS and Windows paths are
 * tested on Linux.
 *
 * @module
 */
import type { ClientId } from "./clients.ts";
import type { LaunchCommand } from "./launch.ts";

/** Operating systems with their own configuration folders. */
export type Os = "linux" | "darwin" | "windows";

/** What path resolution looks at. */
export interface PathContext {
  /** The operating system. */
  os: Os;
  /** The home folder ({@link homeDir}). */
  home: string;
  /** Environment variables (`XDG_CONFIG_HOME`, `APPDATA`, `CODEX_HOME`, ...). */
  env: Record<string, string | undefined>;
  /** Whether a file exists (Roo Code and OpenCode pick an existing file); default: none does. */
  exists?: (path: string) => boolean;
}

/** How a client's configuration is written. */
export type ConfigFormat = "json" | "toml";

/** A client's configuration file. */
export interface ConfigFile {
  /** Absolute path of the file. */
  path: string;
  /** JSON (comments tolerated and kept) or TOML (Codex). */
  format: ConfigFormat;
  /** The key holding the servers (`mcpServers`, `servers`, `mcp`, `mcp_servers`). */
  rootKey: string;
}

/** A client's configuration file, or why this OS has none. */
export type ConfigLocation = ConfigFile | {
  /** The client does not exist on this OS: why, and where it keeps its file elsewhere. */
  unavailable: string;
};

/** The home folder: `HOME`, else `USERPROFILE`, else `.`. */
export function homeDir(env: Record<string, string | undefined>): string {
  return env.HOME || env.USERPROFILE || ".";
}

/** The running operating system as an {@link Os}. */
export function currentOs(): Os {
  return Deno.build.os === "darwin" ? "darwin" : Deno.build.os === "windows" ? "windows" : "linux";
}

function join(os: Os, ...parts: string[]): string {
  const sep = os === "windows" ? "\\" : "/";
  return parts.map((p, i) => {
    let part = p.replaceAll(/[\\/]/g, sep);
    if (i > 0) part = part.replace(/^[\\/]+/, "");
    if (i < parts.length - 1) part = part.replace(/[\\/]+$/, "");
    return part;
  }).filter((p, i) => p !== "" || i === 0).join(sep);
}

function isAbsolute(os: Os, path: string): boolean {
  return os === "windows" ? /^([A-Za-z]:[\\/]|[\\/]{2})/.test(path) : path.startsWith("/");
}

/** `XDG_CONFIG_HOME` when absolute, else `~/.config` (used on every OS by XDG-style tools). */
function xdgConfig(ctx: PathContext): string {
  const xdg = ctx.env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(ctx.os, xdg) ? xdg : join(ctx.os, ctx.home, ".config");
}

/** Where desktop applications keep settings: Application Support, %APPDATA% or XDG. */
export function appConfigRoot(ctx: PathContext): string {
  if (ctx.os === "darwin") return join(ctx.os, ctx.home, "Library", "Application Support");
  if (ctx.os === "windows") {
    return ctx.env.APPDATA || join(ctx.os, ctx.home, "AppData", "Roaming");
  }
  return xdgConfig(ctx);
}

const DESKTOP_PATHS =
  "~/Library/Application Support/Claude/claude_desktop_config.json on macOS, %APPDATA%\\Claude\\claude_desktop_config.json on Windows";

/** Editors Roo Code runs in, in the order their settings are looked for. */
const ROO_EDITORS = ["Code", "Cursor", "Windsurf", "VSCodium"];
const ROO_FILES = ["mcp_settings.json", "cline_mcp_settings.json"];

/**
 * The configuration file of `client` on `ctx.os`, or why there is none.
 * Claude Code's is the file written when its `claude` command is absent.
 *
 * ```ts
 * configLocation("cursor", { os: "linux", home: "/home/ada", env: {} });
 * // { path: "/home/ada/.cursor/mcp.json", format: "json", rootKey: "mcpServers" }
 * ```
 */
export function configLocation(client: ClientId, ctx: PathContext): ConfigLocation {
  const { os, home, env } = ctx;
  const exists = ctx.exists ?? (() => false);
  const j = (...parts: string[]) => join(os, ...parts);
  const json = (path: string, rootKey = "mcpServers"): ConfigLocation => ({
    path,
    format: "json",
    rootKey,
  });
  switch (client) {
    case "claude-code":
      return json(j(env.CLAUDE_CONFIG_DIR || home, ".claude.json"));
    case "claude-desktop":
      if (os === "linux") {
        return {
          unavailable:
            `Claude Desktop exists only on macOS and Windows (its configuration is ${DESKTOP_PATHS}); on Linux use --target claude-code`,
        };
      }
      return json(j(appConfigRoot(ctx), "Claude", "claude_desktop_config.json"));
    case "codex":
      return {
        path: j(env.CODEX_HOME || j(home, ".codex"), "config.toml"),
        format: "toml",
        rootKey: "mcp_servers",
      };
    case "cursor":
      return json(j(home, ".cursor", "mcp.json"));
    case "vscode":
      return json(j(appConfigRoot(ctx), "Code", "User", "mcp.json"), "servers");
    case "windsurf":
      return json(j(home, ".codeium", "windsurf", "mcp_config.json"));
    case "gemini":
      return json(j(home, ".gemini", "settings.json"));
    case "opencode": {
      const dir = j(xdgConfig(ctx), "opencode");
      const plain = j(dir, "opencode.json");
      const commented = j(dir, "opencode.jsonc");
      return json(!exists(plain) && exists(commented) ? commented : plain, "mcp");
    }
    case "cline":
      return json(
        env.CLINE_MCP_SETTINGS_PATH ||
          j(home, ".cline", "data", "settings", "cline_mcp_settings.json"),
      );
    case "roo-code": {
      const candidates = ROO_EDITORS.flatMap((editor) =>
        ROO_FILES.map((file) =>
          j(
            appConfigRoot(ctx),
            editor,
            "User",
            "globalStorage",
            "rooveterinaryinc.roo-cline",
            "settings",
            file,
          )
        )
      );
      return json(candidates.find(exists) ?? candidates[0]);
    }
    case "droid":
      return json(j(home, ".factory", "mcp.json"));
    case "antigravity":
      return json(j(home, ".gemini", "antigravity", "mcp_config.json"));
  }
}

/**
 * Every file `client` may keep its servers in on `ctx.os` (Roo Code and
 * OpenCode pick among several), for reading what `install` wrote.
 */
export function configCandidates(client: ClientId, ctx: PathContext): string[] {
  const base = configLocation(client, { ...ctx, exists: () => false });
  if (!("path" in base)) return [];
  if (client === "opencode") return [base.path, base.path.replace(/\.json$/, ".jsonc")];
  if (client !== "roo-code") return [base.path];
  return ROO_EDITORS.flatMap((editor) =>
    ROO_FILES.map((file) =>
      join(
        ctx.os,
        appConfigRoot(ctx),
        editor,
        "User",
        "globalStorage",
        "rooveterinaryinc.roo-cline",
        "settings",
        file,
      )
    )
  );
}

/** Environment keys the launch line manages (dropped from an old entry when no longer set). */
export const MANAGED_ENV = ["__IS_WSL_TEST__", "TMPDIR"];

/** A client's entry: the fields install owns, and the name of its environment field. */
export interface ClientEntry {
  /** The entry's fields (environment excluded). */
  fields: Record<string, unknown>;
  /** Where the environment goes (`env`, or `environment` for OpenCode). */
  envKey: string;
}

/** The server entry `client` expects for `launch` (environment kept apart). */
export function clientEntry(client: ClientId, launch: LaunchCommand): ClientEntry {
  const plain = { command: launch.command, args: launch.args };
  switch (client) {
    case "claude-code":
    case "vscode":
      return { fields: { type: "stdio", ...plain }, envKey: "env" };
    case "opencode":
      return {
        fields: { type: "local", command: [launch.command, ...launch.args], enabled: true },
        envKey: "environment",
      };
    case "cline":
    case "roo-code":
      return { fields: { ...plain, disabled: false }, envKey: "env" };
    case "droid":
      return { fields: { type: "stdio", ...plain, disabled: false }, envKey: "env" };
    default:
      return { fields: plain, envKey: "env" };
  }
}
