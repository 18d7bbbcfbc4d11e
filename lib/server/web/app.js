// The try-it page of `serve --http`: a client of the HTTP API (/api, /api/sections) on the
// same origin. Remote text (titles, headings, page text, error messages) is only ever set
// as textContent, never parsed as HTML. The token, when the server needs one, is sent as an
// Authorization header and kept in this tab's sessionStorage, never in a URL.
"use strict";

const TOKEN_KEY = "parkour.token";

const $ = (id) => document.getElementById(id);

/** The page the person loaded: its URL as the API was given it. */
let current = null;

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

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** The outline as nested lists, from each section's parent index. */
function renderOutline(outline) {
  const root = $("outline");
  clear(root);
  const lists = new Map();
  for (const s of outline.sections) {
    const item = element("li");
    const button = element("button", s.title || "(untitled)");
    button.type = "button";
    button.dataset.address = s.address;
    button.addEventListener("click", () => readSection(s.address, button));
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

/** The frontmatter block and the body of an answer's Markdown. */
function splitFrontmatter(markdown) {
  if (!markdown.startsWith("---\n")) return { frontmatter: "", body: markdown };
  const end = markdown.indexOf("\n---", 3);
  if (end < 0) return { frontmatter: "", body: markdown };
  return {
    frontmatter: markdown.slice(4, end),
    body: markdown.slice(end + 4).replace(/^\n+/, ""),
  };
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

/** Shows an answer of /api (format=json, frontmatter=true). */
function renderAnswer(record) {
  const { frontmatter, body } = splitFrontmatter(record.markdown ?? "");
  $("frontmatter").textContent = frontmatter;
  $("body").textContent = body;
  const counts = $("counts");
  clear(counts);
  for (const [name, pick] of COUNTS) {
    const value = pick(record);
    if (value === undefined || value === null || value === "") continue;
    const pair = element("div");
    pair.dataset.count = name;
    pair.append(element("dt", name), element("dd", String(value)));
    counts.append(pair);
  }
  const hints = $("hints");
  clear(hints);
  for (const hint of record.hints ?? []) hints.append(element("li", hint));
}

function markCurrent(button) {
  for (const b of $("outline").querySelectorAll("button")) b.removeAttribute("aria-current");
  if (button) button.setAttribute("aria-current", "true");
}

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

function readPage(params) {
  return api("/api", { url: current, format: "json", frontmatter: "true", ...params });
}

function load(event) {
  event.preventDefault();
  const url = pageAddress($("url").value);
  return run(url ? `reading ${url}` : "reading", async () => {
    if (url === "") throw new Error("Give the address of a page, such as https://example.org.");
    $("url").value = url;
    const outline = await api("/api/sections", { url, format: "json" });
    current = url;
    renderOutline(outline);
    $("workspace").hidden = false;
    markCurrent(null);
    renderAnswer(await readPage({ max_tokens: budget() }));
  });
}

function readSection(address, button) {
  markCurrent(button);
  return run(`reading section ${address}`, async () => {
    renderAnswer(await readPage({ section: address }));
  });
}

function ask(event) {
  event.preventDefault();
  const text = $("ask").value.trim();
  const mode = $("mode").value === "search" ? "search" : "query";
  return run(mode === "search" ? "searching" : "answering", async () => {
    if (!current) throw new Error("Load a page first.");
    if (text === "") {
      throw new Error(mode === "search" ? "Give words to search for." : "Give a question.");
    }
    markCurrent(null);
    renderAnswer(await readPage({ [mode]: text, max_tokens: budget() }));
  });
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
  $("mode").addEventListener("change", () => {
    $("ask").placeholder = $("mode").value === "search"
      ? '+port -proxy "exact phrase"'
      : "how long can a line be";
  });
}

start();
