/**
 * Writes docs/tools.md from the real tools: each tool's name in both
 * profiles, the first paragraph of its description, a table of its
 * parameters (from its input schema, as `tools/list` publishes it), and one
 * example call with the answer the tool gives, run in this process against
 * the recorded exchanges of `fixtures/http` (the hand-written ones: nothing
 * reaches the network). Answers are cut to their first lines, and the
 * random fence id is written as `<id>`.
 *
 * ```sh
 * npx -y deno@2.9.6 task docs:tools          # rewrite docs/tools.md
 * npx -y deno@2.9.6 task docs:tools --check  # fail when it is out of date
 * ```
 *
 * @module
 */
import { z } from "zod";

const ROOT = new URL("../", import.meta.url);
const OUT = new URL("docs/tools.md", ROOT);
/** Lines of an answer shown. */
const SHOWN_LINES = 26;

/** One example call per tool, on recorded exchanges. */
const EXAMPLES: Record<string, Record<string, unknown>> = {
  web_fetch_sections: { url: "https://example.org/ferry-guide" },
  web_fetch_incisive: { url: "https://example.org/ferry-guide", section: "Child fares" },
  arxiv: { action: "paper", query: "arXiv:hep-th/9711200v3" },
  ietf: { action: "rfc", query: "RFC 2119" },
  semantic_scholar: { action: "paper", query: "DOI:10.5555/widget.2021.1" },
  github: { action: "repo", query: "octo-org/widget" },
  packages: { action: "version", query: "pip/requests@2.31.0" },
  huggingface: { action: "model", query: "acme/tiny-llama-bf16" },
  mediawiki: { action: "page", title: "Lovelace" },
  discourse: { action: "topic", query: "https://discuss.example.org/t/welcome/42" },
  youtube: { action: "video", url: "https://youtu.be/Tst_Video01" },
  youtube_comments: { url: "https://www.youtube.com/watch?v=Tst_Video01" },
  kagi_search: { query: 'deno "test runner" site:docs.deno.com' },
  research_shelf: { action: "list" },
};

type Json = Record<string, unknown>;

function typeOf(schema: Json): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `\`${v}\``).join(" | ");
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map(typeOf).join(" or ");
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as Json[]).map(typeOf).join(" or ");
  if (schema.type === "array") {
    return `list of ${schema.items ? typeOf(schema.items as Json) : "values"}`;
  }
  if (schema.type === "integer" || schema.type === "number") {
    const lo = schema.minimum as number | undefined;
    const hi = schema.maximum as number | undefined;
    const safe = (n: number | undefined) => n !== undefined && Math.abs(n) < 1e15;
    return safe(lo) && safe(hi)
      ? `${schema.type} ${lo}–${hi}`
      : safe(lo)
      ? `${schema.type} ≥ ${lo}`
      : String(schema.type);
  }
  return typeof schema.type === "string" ? schema.type : "value";
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replace(/\s+/g, " ").trim();
}

function table(schema: Json): string[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(props).map(([name, p]) =>
    `| \`${name}\` | ${cell(typeOf(p))} | ${required.has(name) ? "yes" : ""} | ${
      cell(String(p.description ?? ""))
    } |`
  );
  if (rows.length === 0) return ["(no parameters)"];
  return ["| Parameter | Type | Required | Meaning |", "| --- | --- | --- | --- |", ...rows];
}

function shown(text: string): string {
  const masked = text.replace(
    /\b(fence: |untrusted content(?:: [^[\n]*)? \[)"?[0-9a-f]{8}"?/g,
    "$1<id>",
  )
    // Dates a source computes from today's clock.
    .replace(/^(fetched|retrieved): .*$/gm, "$1: <time>")
    .replace(/\(in about \d+ min\)/g, "(in about <n> min)");
  const lines = masked.split("\n");
  return lines.length > SHOWN_LINES
    ? [
      ...lines.slice(0, SHOWN_LINES),
      `… (${lines.length - SHOWN_LINES} more line${lines.length - SHOWN_LINES === 1 ? "" : "s"})`,
    ].join("\n")
    : masked;
}

/** docs/tools.md as the tools describe themselves today. */
export async function render(): Promise<string> {
  Deno.env.set("S2_ACCEPT_TOS", "1");
  Deno.env.set("KAGI_API_KEY", "kagi-test-key-7f3a9c");
  Deno.env.set("PARKOUR_REPLAY_DIR", new URL("fixtures/http", ROOT).pathname);
  Deno.env.delete("PARKOUR_SHARED_DIR");
  const { TOOLS } = await import("../lib/tools/catalog.ts");
  const { ToolRegistry } = await import("../lib/tools/registry.ts");
  const resolved = new Map(
    // Every action documented: those that change data say they are off by default.
    new ToolRegistry(TOOLS, "desktop", { mutating: true }).list().map((
      t,
    ) => [t.definition.key, t.description]),
  );
  const { createServer } = await import("../server.ts");
  const { envelopeReady } = await import("../lib/envelope/frontmatter.ts");
  await envelopeReady();
  const server = createServer({ profile: "desktop" });
  const out = [
    "# The tools",
    "",
    "Every tool the server lists, with its parameters (from the schema `tools/list` publishes) and one",
    "example call with the start of its answer, run against the recorded exchanges in",
    "`fixtures/http` (fictional pages and hand-written API answers). Generated by",
    "`scripts/tool_docs.ts` (`npx -y deno@2.9.6 task docs:tools`); do not edit by hand. Back to the",
    "[README](../README.md); the sources behind the tools: [sources.md](sources.md).",
    "",
    "## Contents",
    "",
    ...TOOLS.map((t) => `- [\`${t.names.desktop}\`](#${t.names.desktop.replaceAll("_", "_")})`),
    "",
  ];
  for (const tool of TOOLS) {
    const name = tool.names.desktop;
    const description = (resolved.get(tool.key) ?? "").split(/\n\s*\n/)[0]
      .replace(/\s*\n\s*/g, " ");
    const schema = z.toJSONSchema(tool.inputSchema as unknown as z.ZodType, {
      io: "input",
      unrepresentable: "any",
    }) as Json;
    out.push(
      `## ${name}`,
      "",
      `\`${name}\` (\`${tool.names.code}\` in the code profile). ${description}`,
      "",
    );
    if (tool.mutating) {
      out.push(
        `The actions ${
          tool.mutating.actions.map((a) => `\`${a}\``).join(", ")
        } change data and are off unless the server runs with \`--enable-mutating-tools\` (or \`PARKOUR_ENABLE_MUTATING_TOOLS=1\`): until then the tool is listed without them and refuses them (see [configuration.md](configuration.md#actions-that-change-data)).`,
        "",
      );
    }
    out.push(...table(schema), "");
    const args = EXAMPLES[tool.key];
    if (!args) continue;
    const result = await server.callTool(name, args);
    const text = result.content[0]?.text ?? "";
    out.push(
      "Example:",
      "",
      "```json",
      JSON.stringify({ name, arguments: args }),
      "```",
      "",
      result.isError ? "Answer (an error, as the agent gets it):" : "Answer:",
      "",
      "```text",
      shown(text),
      "```",
      "",
    );
  }
  await server.close();
  return out.join("\n");
}

if (import.meta.main) {
  const text = await render();
  const formatted = await format(text);
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(OUT).catch(() => "");
    if (current !== formatted) {
      const was = current.split("\n");
      const now = formatted.split("\n");
      const at = now.findIndex((line, i) => line !== was[i]);
      console.error(
        `docs/tools.md is out of date (line ${at + 1}: ${JSON.stringify(was[at])} is now ${
          JSON.stringify(now[at])
        }): run \`npx -y deno@2.9.6 task docs:tools\``,
      );
      Deno.exit(1);
    }
    console.log("docs/tools.md is up to date");
  } else {
    await Deno.writeTextFile(OUT, formatted);
    console.log(`wrote ${OUT.pathname}`);
  }
}

/** The text as `deno fmt` writes Markdown (so the check and the formatter agree). */
async function format(text: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext", "md", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    cwd: ROOT.pathname,
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const result = await out.output();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
  return new TextDecoder().decode(result.stdout);
}
