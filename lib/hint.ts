/**
 * Hints as data. A next step (read a section, the next outline window,
 * search instead, render with JavaScript, raise the budget, the whole page)
 * is a value: server-written words around calls and parameters. Each face
 * renders it in its own terms: MCP as the tool and its parameters in the
 * profile's names, the CLI as the command line to type, REST as the URL to
 * request. No face shows another face's parameter names.
 *
 * Hints are vocabulary, like trusted values: sources put them in a
 * Document's facts, views in their results, and the faces render them.
 *
 * @module
 */
import { type Trusted, trusted } from "./trust.ts";
import { shellQuote } from "./shell.ts";
/** The faces a request reaches the views through. */
export const FACES = ["mcp", "rest", "cli", "library"] as const;
/** One of {@link FACES}. */
export type Face = typeof FACES[number];

/** A parameter name as `face` spells it. */
export function paramName(face: Face, key: string): string {
  return face === "cli" ? `--${key.replaceAll("_", "-")}` : key;
}

/**
 * What a message is: a next step, a note about the answer, a warning, or a
 * pointer to where else the work can be read (`see_also`).
 */
export type MessageKind = "hint" | "note" | "warning" | "see_also";

/** A value a person fills in (`<name or #id>`), not a literal. */
export interface Placeholder {
  /** What to fill in. */
  placeholder: string;
}

/** A value of a parameter in a hint. */
export type HintValue = string | number | boolean | Placeholder;

/** The two page views a call can name. */
export type Target = "page" | "outline";

/** A parameter reference: `search=` on MCP, `--search` on the CLI. */
export interface ParamPart {
  /** The parameter. */
  param: string;
  /** Its value, when the hint gives one. */
  value?: HintValue;
}

/** A call of a page view with parameters. */
export interface CallPart {
  /** Which view. */
  call: Target;
  /** Its parameters (the URL is the request's own). */
  params: Record<string, HintValue>;
}

/**
 * A call of another tool by its key (`semantic_scholar`, `ietf`): the MCP
 * face writes the active profile's name for it. A message holding one is
 * shown only where that tool is active (see {@link shown}): other faces have
 * no tools, and a tool that is off (Semantic Scholar without its licence, a
 * tool left out of the tool list) is never pointed at.
 */
export interface ToolPart {
  /** The tool's key. */
  tool: string;
  /** Its arguments. */
  params: Record<string, HintValue>;
}

/** One piece of a message. */
export type Part = string | number | ParamPart | CallPart | ToolPart;

/** A message: its kind and its pieces. */
export interface Message {
  /** Hint, note or warning. */
  kind: MessageKind;
  /** The pieces, in order. */
  parts: Part[];
}

/** A value to fill in. */
export function ph(placeholder: string): Placeholder {
  return { placeholder };
}

/** A parameter reference. */
export function p(key: string, value?: HintValue): ParamPart {
  return value === undefined ? { param: key } : { param: key, value };
}

/** A call of the page view (`web_fetch_incisive`, `fetch`, `/api`). */
export function readPage(params: Record<string, HintValue> = {}): CallPart {
  return { call: "page", params };
}

/** A call of the outline view (`web_fetch_sections`, `sections`, `/api/sections`). */
export function readOutline(params: Record<string, HintValue> = {}): CallPart {
  return { call: "outline", params };
}

/** A call of the tool `key` (a sibling source tool) with `params`. */
export function callTool(key: string, params: Record<string, HintValue> = {}): ToolPart {
  return { tool: key, params };
}

/** The tool keys a message names, in order. */
export function toolsNamed(message: Message): string[] {
  return message.parts.flatMap((part) =>
    typeof part === "object" && "tool" in part ? [part.tool] : []
  );
}

function build(kind: MessageKind) {
  return (strings: TemplateStringsArray, ...values: Part[]): Message => {
    const parts: Part[] = [];
    strings.forEach((s, i) => {
      if (s) parts.push(s);
      if (i < values.length) parts.push(values[i]);
    });
    return { kind, parts };
  };
}

/** A next-step hint: hint`read one with ${readPage({ section: ph("name") })}`. */
export const hint: (strings: TemplateStringsArray, ...values: Part[]) => Message = build("hint");
/** A note about the answer. */
export const note: (strings: TemplateStringsArray, ...values: Part[]) => Message = build("note");
/** A pointer to where else the work can be read. */
export const seeAlso: (strings: TemplateStringsArray, ...values: Part[]) => Message = build(
  "see_also",
);
/** A warning. */
export const warning: (strings: TemplateStringsArray, ...values: Part[]) => Message = build(
  "warning",
);

/** A plain server-written message with no calls. */
export function plain(kind: MessageKind, text: string): Message {
  return { kind, parts: [text] };
}

/** Where a message is shown, and what its face needs to spell calls. */
export type HintContext =
  | {
    face: "mcp" | "library";
    /** The view answering (a call of the same view shows only its parameters). */
    current: Target;
    /** The profile's tool name for a view. */
    toolName(target: Target): string;
    /**
     * The profile's name of the tool `key` when it is active, else undefined
     * (the tool registry's isActive answer): a message naming
     * an inactive tool is not shown. Absent: no other tool is named.
     */
    tool?(key: string): string | undefined;
  }
  | {
    face: "cli";
    /** How the user runs the CLI: `deno task`, `parkour`, a binary's name. */
    command: string;
    /** The page as the user gave it. */
    target: string;
  }
  | {
    face: "rest";
    /** The page URL (with its fragment). */
    url: string;
  };

function isPlaceholder(v: HintValue): v is Placeholder {
  return typeof v === "object" && v !== null && "placeholder" in v;
}

function mcpValue(v: HintValue): string {
  return isPlaceholder(v) ? `<${v.placeholder}>` : String(v);
}

function cliArgs(params: Record<string, HintValue>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === true) out.push(paramName("cli", key));
    else if (value === false) continue;
    else {
      out.push(
        paramName("cli", key),
        isPlaceholder(value) ? `'<${value.placeholder}>'` : shellQuote(String(value)),
      );
    }
  }
  return out;
}

function restQuery(params: Record<string, HintValue>): string {
  return Object.entries(params).map(([key, value]) =>
    `&${key}=${isPlaceholder(value) ? `<${value.placeholder}>` : encodeURIComponent(String(value))}`
  ).join("");
}

/**
 * Whether `message` can be shown on `ctx`'s face: every tool it names is
 * active there. The CLI, the HTTP API and the library have no tools, so a
 * message naming one is MCP-only.
 */
export function shown(message: Message, ctx: HintContext): boolean {
  const tools = toolsNamed(message);
  if (tools.length === 0) return true;
  if (ctx.face !== "mcp") return false;
  return tools.every((key) => ctx.tool?.(key) !== undefined);
}

function toolArgs(params: Record<string, HintValue>): string {
  return Object.entries(params).map(([k, v]) => {
    const text = mcpValue(v);
    return `${k}=${
      /[\s'"]/.test(text) && !isPlaceholder(v) ? `'${text.replaceAll("'", "")}'` : text
    }`;
  }).join(" ");
}

/** One piece, as `ctx`'s face writes it. */
function renderPart(part: Part, ctx: HintContext): string {
  if (typeof part === "string") return part;
  if (typeof part === "number") return String(part);
  if ("tool" in part) {
    const name = ctx.face === "mcp" || ctx.face === "library"
      ? ctx.tool?.(part.tool) ?? part.tool
      : part.tool;
    const args = toolArgs(part.params);
    return args ? `${name} with ${args}` : name;
  }
  if ("param" in part) {
    if (ctx.face === "cli") {
      return part.value === undefined
        ? paramName("cli", part.param)
        : cliArgs({ [part.param]: part.value }).join(" ");
    }
    // MCP, REST and the library write a parameter the same way: name=value.
    return `${part.param}=${part.value === undefined ? "" : mcpValue(part.value)}`;
  }
  const entries = Object.entries(part.params);
  switch (ctx.face) {
    case "cli": {
      const sub = part.call === "page" ? "fetch" : "sections";
      return [ctx.command, sub, shellQuote(ctx.target), ...cliArgs(part.params)].join(" ");
    }
    case "rest": {
      const path = part.call === "page" ? "/api" : "/api/sections";
      return `${path}?url=${encodeURIComponent(ctx.url)}${restQuery(part.params)}`;
    }
    default: {
      const args = entries.map(([k, v]) => `${k}=${mcpValue(v)}`).join(" ");
      if (part.call === ctx.current && args) return args;
      const tool = ctx.toolName(part.call);
      return args ? `${tool} with ${args}` : tool;
    }
  }
}

/** A message as `ctx`'s face shows it: one line of server-written text. */
export function renderMessage(message: Message, ctx: HintContext): string {
  return message.parts.map((part) => renderPart(part, ctx)).join("")
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
}

const MCP_WORDS: HintContext = {
  face: "mcp",
  current: "page",
  toolName: (t) => (t === "page" ? "web_fetch_incisive" : "web_fetch_sections"),
  tool: (key) => key,
};

/**
 * A Document fact holding a message (a source's hint or note about reading
 * its pages): rendered per face; its value is the MCP wording.
 */
export function messageFact(
  message: Message,
): { key: MessageKind; value: Trusted; message: Message } {
  return {
    key: message.kind,
    value: trusted.echo(renderMessage(message, MCP_WORDS), 2000),
    message,
  };
}
