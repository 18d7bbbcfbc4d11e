/**
 * The MCP clients `install` can configure: their command-line ids and
 * display names, in the order `--all` uses.
 *
 * @module
 */

/** Client ids accepted by `install --target`. */
export const CLIENT_IDS = [
  "claude-code",
  "claude-desktop",
  "codex",
  "cursor",
  "vscode",
  "windsurf",
  "gemini",
  "opencode",
  "cline",
  "roo-code",
  "droid",
  "antigravity",
] as const;

/** A client id. */
export type ClientId = typeof CLIENT_IDS[number];

/** Display names of the clients. */
export const CLIENT_LABELS: Record<ClientId, string> = {
  "claude-code": "Claude Code",
  "claude-desktop": "Claude Desktop",
  codex: "Codex CLI",
  cursor: "Cursor",
  vscode: "VS Code",
  windsurf: "Windsurf",
  gemini: "Gemini CLI",
  opencode: "OpenCode",
  cline: "Cline",
  "roo-code": "Roo Code",
  droid: "Droid (Factory)",
  antigravity: "Antigravity",
};
