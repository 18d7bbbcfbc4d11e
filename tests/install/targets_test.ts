/**
 * Where each client's configuration lives on Linux, macOS and Windows: the
 * pure path resolution `install` uses (the files themselves are tested
 * through the CLI in install_test.ts).
 */
import assert from "node:assert/strict";
import { CLIENT_IDS, type ClientId } from "../../lib/install/clients.ts";
import { configLocation, homeDir, type PathContext } from "../../lib/install/targets.ts";

function paths(ctx: PathContext): Record<string, string> {
  return Object.fromEntries(CLIENT_IDS.map((id: ClientId) => {
    const loc = configLocation(id, ctx);
    return [id, "path" in loc ? `${loc.path} [${loc.format} ${loc.rootKey}]` : "unavailable"];
  }));
}

Deno.test("config paths on Linux follow HOME and XDG_CONFIG_HOME", () => {
  assert.deepEqual(paths({ os: "linux", home: "/home/ada", env: { XDG_CONFIG_HOME: "/xdg" } }), {
    "claude-code": "/home/ada/.claude.json [json mcpServers]",
    "claude-desktop": "unavailable",
    codex: "/home/ada/.codex/config.toml [toml mcp_servers]",
    cursor: "/home/ada/.cursor/mcp.json [json mcpServers]",
    vscode: "/xdg/Code/User/mcp.json [json servers]",
    windsurf: "/home/ada/.codeium/windsurf/mcp_config.json [json mcpServers]",
    gemini: "/home/ada/.gemini/settings.json [json mcpServers]",
    opencode: "/xdg/opencode/opencode.json [json mcp]",
    cline: "/home/ada/.cline/data/settings/cline_mcp_settings.json [json mcpServers]",
    "roo-code":
      "/xdg/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json [json mcpServers]",
    droid: "/home/ada/.factory/mcp.json [json mcpServers]",
    antigravity: "/home/ada/.gemini/antigravity/mcp_config.json [json mcpServers]",
  });
  // A relative XDG_CONFIG_HOME is invalid by the XDG spec and ignored.
  const loc = configLocation("vscode", { os: "linux", home: "/h", env: { XDG_CONFIG_HOME: "x" } });
  assert.equal("path" in loc && loc.path, "/h/.config/Code/User/mcp.json");
  const desktop = configLocation("claude-desktop", { os: "linux", home: "/h", env: {} });
  assert.ok("unavailable" in desktop);
  assert.match(desktop.unavailable, /only on macOS and Windows.*--target claude-code/);
});

Deno.test("config paths on macOS use Application Support for the desktop apps", () => {
  const p = paths({ os: "darwin", home: "/Users/ada", env: {} });
  const support = "/Users/ada/Library/Application Support";
  assert.equal(
    p["claude-desktop"],
    `${support}/Claude/claude_desktop_config.json [json mcpServers]`,
  );
  assert.equal(p.vscode, `${support}/Code/User/mcp.json [json servers]`);
  assert.equal(
    p["roo-code"],
    `${support}/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json [json mcpServers]`,
  );
  // OpenCode uses XDG folders on every OS.
  assert.equal(p.opencode, "/Users/ada/.config/opencode/opencode.json [json mcp]");
  assert.equal(p.cursor, "/Users/ada/.cursor/mcp.json [json mcpServers]");
});

Deno.test("config paths on Windows use %APPDATA% and %USERPROFILE% with backslashes", () => {
  const env = { USERPROFILE: "C:\\Users\\ada", APPDATA: "C:\\Users\\ada\\AppData\\Roaming" };
  const p = paths({ os: "windows", home: homeDir(env), env });
  assert.equal(
    p["claude-desktop"],
    "C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json [json mcpServers]",
  );
  assert.equal(p.vscode, "C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json [json servers]");
  assert.equal(p.codex, "C:\\Users\\ada\\.codex\\config.toml [toml mcp_servers]");
  assert.equal(p["claude-code"], "C:\\Users\\ada\\.claude.json [json mcpServers]");
  assert.equal(p.opencode, "C:\\Users\\ada\\.config\\opencode\\opencode.json [json mcp]");
  // Without APPDATA, the roaming folder under the profile.
  const bare = configLocation("vscode", { os: "windows", home: "C:\\Users\\bo", env: {} });
  assert.equal(
    "path" in bare && bare.path,
    "C:\\Users\\bo\\AppData\\Roaming\\Code\\User\\mcp.json",
  );
});

Deno.test("config paths honour the clients' own overrides and existing files", () => {
  const env = {
    CODEX_HOME: "/opt/codex",
    CLAUDE_CONFIG_DIR: "/opt/claude",
    CLINE_MCP_SETTINGS_PATH: "/opt/cline.json",
  };
  const p = paths({ os: "linux", home: "/h", env });
  assert.equal(p.codex, "/opt/codex/config.toml [toml mcp_servers]");
  assert.equal(p["claude-code"], "/opt/claude/.claude.json [json mcpServers]");
  assert.equal(p.cline, "/opt/cline.json [json mcpServers]");
  // Roo Code inside Cursor with the older file name; OpenCode's .jsonc when only it exists.
  const roo =
    "/h/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/cline_mcp_settings.json";
  const jsonc = "/h/.config/opencode/opencode.jsonc";
  const exists = (path: string) => path === roo || path === jsonc;
  const found = paths({ os: "linux", home: "/h", env: {}, exists });
  assert.equal(found["roo-code"], `${roo} [json mcpServers]`);
  assert.equal(found.opencode, `${jsonc} [json mcp]`);
  assert.equal(homeDir({}), ".");
  assert.equal(homeDir({ HOME: "/h", USERPROFILE: "C:\\u" }), "/h");
});
