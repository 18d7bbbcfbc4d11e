// The try-it page of `serve --http`: a client of the HTTP API (/api, /api/sections) on the
// same origin. Remote text (titles, headings, error messages) is only ever set as textContent;
// an answer's Markdown becomes HTML only through render.js (parsed with raw HTML kept as text,
// then sanitised). The address bar holds what is shown (`/?url=...&section=...`, `&query=`,
// `&search=`, `&slices=`, `&max_tokens=`): a link opens the same view, and back and forward
// move between views. The token, when the server needs one, is sent as an Authorization header
// and kept in this tab's sessionStorage, never in a URL.
import { linkTarget, renderMarkdown } from "/web/render.js";

const TOKEN_KEY = "parkour.token";

/** The views a state may name, one at a time; none is the page from the top. */
const VIEW_KEYS = ["section", "query", "search", "slices"];
/** Parameters the page sets itself, never taken from an address. */
const OWN_KEYS = new Set(["format", "frontmatter", "token"]);
/** The ask box's modes, by view. */
const MODE_TEXT = {
  query: { placeholder: "how long can a line be", missing: "Give a question." },
  search: { placeholder: '+port -proxy "exact phrase"', missing: "Give words to search for." },
  slices: { placeholder: "3,4 or -1", missing: "Give slice numbers, such as 3,4." },
};

const $ = (id) => document.getElementById(id);

/** The page whose outline is shown: its URL as the API was given it. */
let current = null;
/** The page's address as its answers name it (after redirects), for its links. */
let currentBase = null;
/** The state whose answer is shown. */
let shown = null;

/** A bare host or path gets https:// in front, as the CLI does. */
function pageAddress(raw) {
  const text = raw.trim();
  if (text === "") return "";
  return /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
}

function token() {
  return $("token").value.trim();
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
}

function status(text) {
  $("status").textContent = text;
}

/** What an error answer says, with what to do for the refusals of the gates. */
function failure(response, body) {
  const said = body && typeof body.error === "string" ? body.error : `HTTP ${response.status}`;
  if (response.status === 401) {
    $("token-box").open = true;
    return `${said}. This server needs its token: enter it in the Token field and try again.`;
  }
  return said;
}

/** GET one API path with `params`; resolves to the JSON body or throws an Error to show. */
async function api(path, params) {
  const query = new URLSearchParams(params);
  const headers = { accept: "application/json" };
  const bearer = token();
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  let response;
  try {
    response = await fetch(`${path}?${query}`, { headers, cache: "no-store" });
  } catch (error) {
    throw new Error(`the server did not answer (${error.message}); is it still running?`);
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) throw new Error(failure(response, body));
  if (body === null) throw new Error(`the server answered HTTP ${response.status} without JSON`);
  return body;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// --- What is shown, as an address ---------------------------------------------------------

/** The state an address holds: the page URL and the view's parameters, in order. */
function stateFrom(search) {
  const state = new Map();
  for (const [key, value] of new URLSearchParams(search)) {
    if (!OWN_KEYS.has(key) && !state.has(key)) state.set(key, value);
  }
  return state;
}

/** The address of a state: `/?url=...&section=...`. */
function addressOf(state) {
  const params = new URLSearchParams();
  const url = state.get("url");
  if (url) params.set("url", url);
  for (const [key, value] of state) if (key !== "url") params.set(key, value);
  const query = params.toString();
  return query ? `/?${query}` : "/";
}

/** Which view a state names (`page` when none). */
function viewOf(state) {
  return VIEW_KEYS.find((key) => state.has(key)) ?? "page";
}

/** The form's fields as a state shows them. */
function fillForm(state) {
  $("url").value = state.get("url") ?? "";
  const view = viewOf(state);
  if (view === "query" || view === "search" || view === "slices") {
    $("mode").value = view;
    $("ask").value = state.get(view);
    modeChanged();
  }
  const budget = state.get("max_tokens");
  if (budget && /^\d+$/.test(budget)) $("budget").value = budget;
}

// --- The outline ---------------------------------------------------------------------------

/** The outline as nested lists, from each section's parent index. */
function renderOutline(outline) {
  const root = $("outline");
  root.replaceChildren();
  const lists = new Map();
  for (const s of outline.sections) {
    const item = element("li");
    const button = element("button", s.title || "(untitled)");
    button.type = "button";
    button.dataset.address = s.address;
    button.addEventListener("click", () => openSection(s.address));
    item.append(button, element("span", s.address, "address"));
    if (s.header_only) item.append(element("span", "header only", "address"));
    const parent = s.parent === null || s.parent === undefined ? root : lists.get(s.parent);
    (parent ?? root).append(item);
    const children = element("ul");
    item.append(children);
    lists.set(s.index, children);
  }
  // Drop the empty child lists, so the tree has no blank rows.
  for (const list of lists.values()) if (!list.firstChild) list.remove();
  const facts = [
    outline.title ? `${outline.title}` : "",
    `${outline.total_sections} sections`,
    `source ${outline.source}`,
    outline.cached ? "cached" : "fetched",
  ].filter(Boolean);
  $("page-facts").textContent = facts.join(" · ");
  if (outline.sections.length === 0) {
    root.append(element("li", "This page has no headings; ask a question or search it."));
  }
}

function markCurrent(address) {
  for (const b of $("outline").querySelectorAll("button")) {
    if (address !== undefined && b.dataset.address === address) {
      b.setAttribute("aria-current", "true");
    } else b.removeAttribute("aria-current");
  }
}

// --- An answer -----------------------------------------------------------------------------

/** The frontmatter block and the body of an answer's Markdown. */
function splitFrontmatter(markdown) {
  const block = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(markdown);
  if (!block) return { frontmatter: "", body: markdown };
  return { frontmatter: block[1], body: markdown.slice(block[0].length).replace(/^\n+/, "") };
}

const COUNTS = [
  ["view", (r) => r.view],
  ["returned tokens", (r) => r.returned_tokens],
  ["page tokens", (r) => r.extract?.original_tokens ?? r.total_tokens],
  ["confidence", (r) => r.extract?.confidence],
  ["sections", (r) => r.extract?.sections_selected ?? r.sections_returned?.length],
  ["matched slices", (r) => r.matched_slices?.length],
  ["truncated", (r) => (r.truncated ? "yes" : undefined)],
  ["total sections", (r) => r.total_sections],
  ["source", (r) => r.source],
];

/** The reader emptied: no answer, no counts, no hints. */
function clearAnswer() {
  shown = null;
  $("frontmatter").textContent = "";
  $("body").replaceChildren();
  $("counts").replaceChildren();
  $("hints").replaceChildren();
}

/** Shows an answer of /api (format=json, frontmatter=true). */
function renderAnswer(record) {
  const { frontmatter, body } = splitFrontmatter(record.markdown ?? "");
  currentBase = record.final_url ?? record.url ?? current;
  $("frontmatter").textContent = frontmatter;
  $("body").replaceChildren(renderMarkdown(body, currentBase));
  const counts = $("counts");
  counts.replaceChildren();
  for (const [name, pick] of COUNTS) {
    const value = pick(record);
    if (value === undefined || value === null || value === "") continue;
    const pair = element("div");
    pair.dataset.count = name;
    pair.append(element("dt", name), element("dd", String(value)));
    counts.append(pair);
  }
  renderHints(record);
}

// --- Hints, as things to click -------------------------------------------------------------

const isPlaceholder = (value) =>
  value !== null && typeof value === "object" && typeof value.placeholder === "string";

const valueText = (value) => (isPlaceholder(value) ? `<${value.placeholder}>` : String(value));

/** A call's label: its parameters as the API names them, or what it reads. */
function callLabel(call) {
  const entries = Object.entries(call.params ?? {}).filter(([key]) => key !== "url");
  if (call.view === "outline") {
    return entries.length
      ? `outline ${entries.map(([k, v]) => `${k}=${valueText(v)}`)}`
      : "outline";
  }
  if (entries.length === 0) return "the whole page";
  return entries.map(([key, value]) => `${key}=${valueText(value)}`).join(" ");
}

function renderHints(record) {
  const list = $("hints");
  list.replaceChildren();
  const steps = Array.isArray(record.hint_steps)
    ? record.hint_steps
    : (record.hints ?? []).map((text) => [text]);
  for (const pieces of steps) {
    const item = element("li");
    for (const piece of pieces) {
      if (typeof piece === "string") {
        item.append(piece);
        continue;
      }
      const button = element("button", callLabel(piece), "hint");
      button.type = "button";
      button.title = piece.href ?? "";
      button.dataset.view = piece.view;
      button.addEventListener("click", () => runHint(piece));
      item.append(button);
    }
    list.append(item);
  }
}

/** Runs a hint's call: a view to show, or, with a value to fill in, the field to fill. */
function runHint(call) {
  const params = call.params ?? {};
  const url = typeof params.url === "string" ? params.url : current;
  const blanks = Object.keys(params).filter((key) => isPlaceholder(params[key]));
  if (call.view === "outline") {
    if (url !== current) return show(new Map([["url", url]]), true);
    $("outline-pane").scrollIntoView({ block: "nearest" });
    $("outline").querySelector("button")?.focus();
    return;
  }
  if (blanks.length > 0) {
    const key = blanks[0];
    if (key === "section") {
      status("Pick a section in the outline.");
      $("outline").querySelector("button")?.focus();
    } else if (key in MODE_TEXT) {
      $("mode").value = key;
      modeChanged();
      $("ask").value = "";
      $("ask").placeholder = valueText(params[key]);
      $("ask").focus();
    } else if (key === "max_tokens") {
      $("budget").focus();
    } else status(`Give ${key} first.`);
    return;
  }
  // A hint's call is the view shown with its parameters changed (raise the budget), or another
  // view of the page (search it) when it names one.
  const state = url === current && shown ? new Map(shown) : new Map([["url", url]]);
  if (VIEW_KEYS.some((key) => key in params)) { for (const key of VIEW_KEYS) state.delete(key); }
  for (const [key, value] of Object.entries(params)) {
    if (key !== "url") state.set(key, String(value));
  }
  return show(state, true);
}

// --- Running views -------------------------------------------------------------------------

function budget() {
  const n = Number($("budget").value);
  return Number.isInteger(n) && n > 0 ? String(n) : "600";
}

/** Runs one request with the status line and the error box kept right. */
async function run(label, work) {
  clearError();
  status(`${label}…`);
  document.body.setAttribute("aria-busy", "true");
  try {
    await work();
    status("");
  } catch (error) {
    status("");
    showError(error.message);
  } finally {
    document.body.removeAttribute("aria-busy");
    // How many requests have finished (programs and tests wait on it).
    document.body.dataset.done = String(Number(document.body.dataset.done ?? 0) + 1);
  }
}

/** Nothing shown: no outline, no answer (a new page that failed leaves nothing of the old). */
function resetWorkspace() {
  current = null;
  currentBase = null;
  shown = null;
  $("workspace").hidden = true;
  $("outline").replaceChildren();
  $("page-facts").textContent = "";
  clearAnswer();
}

/**
 * Shows `state` (its page's outline, then its view), putting its address in the address bar
 * first when `push` (so a failure leaves an address to retry or share, and back goes back).
 */
function show(state, push) {
  if (push && addressOf(state) !== `${location.pathname}${location.search}`) {
    history.pushState(null, "", addressOf(state));
  }
  fillForm(state);
  const url = state.get("url") ?? "";
  const view = viewOf(state);
  const label = view === "page" ? `reading ${url}` : `${view} on ${url}`;
  return run(url ? label : "reading", async () => {
    if (url === "") {
      resetWorkspace();
      return;
    }
    if (url !== current) {
      try {
        const outline = await api("/api/sections", { url, format: "json" });
        current = url;
        renderOutline(outline);
        $("workspace").hidden = false;
      } catch (error) {
        resetWorkspace();
        throw error;
      }
    }
    markCurrent(state.get("section"));
    const params = { url, format: "json", frontmatter: "true" };
    for (const [key, value] of state) if (key !== "url") params[key] = value;
    if (view !== "section" && !state.has("max_tokens")) params.max_tokens = budget();
    try {
      renderAnswer(await api("/api", params));
      shown = state;
    } catch (error) {
      clearAnswer();
      throw error;
    }
  });
}

function openSection(address) {
  return show(new Map([["url", current], ["section", address]]), true);
}

function load(event) {
  event.preventDefault();
  const url = pageAddress($("url").value);
  if (url === "") {
    return run("reading", () => {
      throw new Error("Give the address of a page, such as https://example.org.");
    });
  }
  return show(new Map([["url", url]]), true);
}

function ask(event) {
  event.preventDefault();
  const text = $("ask").value.trim();
  const mode = $("mode").value in MODE_TEXT ? $("mode").value : "query";
  if (!current || text === "") {
    return run("reading", () => {
      throw new Error(!current ? "Load a page first." : MODE_TEXT[mode].missing);
    });
  }
  return show(new Map([["url", current], [mode, text], ["max_tokens", budget()]]), true);
}

function modeChanged() {
  const mode = $("mode").value in MODE_TEXT ? $("mode").value : "query";
  $("ask").placeholder = MODE_TEXT[mode].placeholder;
}

/** A link in an answer to a part of the same page reads that section here. */
function followLink(event) {
  const link = event.target instanceof Element ? event.target.closest("a[data-section]") : null;
  if (!link || !current) return;
  event.preventDefault();
  const target = linkTarget(link.getAttribute("href"), currentBase ?? current);
  if (target?.section) openSection(target.section);
}

function start() {
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) $("token").value = saved;
  $("token").addEventListener("change", () => {
    if (token()) sessionStorage.setItem(TOKEN_KEY, token());
    else sessionStorage.removeItem(TOKEN_KEY);
  });
  $("load-form").addEventListener("submit", load);
  $("ask-form").addEventListener("submit", ask);
  $("mode").addEventListener("change", modeChanged);
  $("body").addEventListener("click", followLink);
  globalThis.addEventListener("popstate", () => show(stateFrom(location.search), false));
  const state = stateFrom(location.search);
  if (state.has("url")) show(state, false);
}

start();
