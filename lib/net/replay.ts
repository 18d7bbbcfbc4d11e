/**
 * Recorded exchanges: the replay transport that tests run on, and the
 * record mode that refreshes them.
 *
 * A fixture is one JSON file per exchange:
 *
 * ```json
 * {
 *   "request": { "method": "GET", "url": "https://example.org/a" },
 *   "response": {
 *     "status": 200,
 *     "headers": { "content-type": "text/html; charset=utf-8" },
 *     "bodyFile": "example_a.html"
 *   },
 *   "provenance": "where the shape came from"
 * }
 * ```
 *
 * The body is `body` (inline text) or `bodyFile`, a path relative to the
 * fixture, or `$SHARED/...` for the real captures under `PARKOUR_SHARED_DIR`
 * (never committed; an exchange that needs them fails with a message saying
 * so when the variable is unset). A `.gz` body file is stored compressed and
 * served decompressed unless the recorded headers say `content-encoding:
 * gzip`. `address` optionally gives the address the host resolved to.
 *
 * Replay matches method and URL exactly. A fixture whose request also gives
 * `accept` matches only requests with that Accept header (content
 * negotiation serves one URL in several forms); one without matches any.
 * A fixture whose request gives `body` (top-level fields of a JSON request
 * body, such as `{"videoId": "..."}`, or fields of a form body) matches only
 * requests whose body has those values: APIs that serve every call at one
 * URL (Innertube's `POST /youtubei/v1/player`, an OAuth token endpoint's
 * grants) are told apart by what they were sent.
 * The address check still runs, on the recorded address (a public
 * placeholder when none was recorded). A request with `Range: bytes=a-b`
 * on a recorded 200 gets 206 and that slice of the body, as a server would.
 *
 * @module
 */
import { NetError } from "./errors.ts";
import type { Resolver } from "./resolver.ts";
import type { Transport, TransportResponse } from "./transport.ts";

/** Address reported for hosts whose fixtures record none: a public address, never contacted. */
export const PLACEHOLDER_ADDRESS = "93.184.215.14";

/** One recorded exchange, as stored. */
export interface Exchange {
  /** The request. */
  request: {
    method: string;
    url: string;
    accept?: string;
    body?: Record<string, string | number | boolean>;
  };
  /** The response. */
  response: {
    status: number;
    headers?: Record<string, string>;
    body?: string;
    bodyFile?: string;
  };
  /** The address the host resolved to. */
  address?: string;
  /** Where the shape came from. */
  provenance: string;
}

interface Loaded {
  exchange: Exchange;
  file: string;
}

function keyOf(method: string, url: string): string {
  return `${method.toUpperCase()} ${new URL(url).href}`;
}

async function* jsonFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* jsonFiles(path);
    else if (entry.name.endsWith(".json")) yield path;
  }
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(
    new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Replays exchanges from `dir` (searched recursively). */
export class ReplayStore {
  readonly #dir: string;
  readonly #shared?: string;
  #index?: Promise<Map<string, Loaded[]>>;

  /** Creates a store over `dir`; `shared` is `PARKOUR_SHARED_DIR`. */
  constructor(dir: string, shared?: string) {
    this.#dir = dir.replace(/\/$/, "");
    this.#shared = shared?.replace(/\/$/, "");
  }

  #load(): Promise<Map<string, Loaded[]>> {
    this.#index ??= (async () => {
      const index = new Map<string, Loaded[]>();
      try {
        await Deno.stat(this.#dir);
      } catch (error) {
        throw new NetError(
          "replay_missing",
          error instanceof Deno.errors.NotCapable
            ? `reading recorded exchanges needs --allow-read=${this.#dir}`
            : `the replay folder ${this.#dir} cannot be read (${(error as Error).message})`,
        );
      }
      for await (const file of jsonFiles(this.#dir)) {
        const exchange = JSON.parse(await Deno.readTextFile(file)) as Exchange;
        if (!exchange.request?.url || !exchange.response || !exchange.provenance) continue;
        const key = keyOf(exchange.request.method ?? "GET", exchange.request.url);
        const accept = exchange.request.accept;
        const at = accept !== undefined ? `${key} ${accept}` : key;
        const list = index.get(at) ?? [];
        // Fixtures that name body fields are tried first, the most specific first.
        list.push({ exchange, file });
        list.sort((a, b) =>
          Object.keys(b.exchange.request.body ?? {}).length -
          Object.keys(a.exchange.request.body ?? {}).length
        );
        index.set(at, list);
      }
      return index;
    })();
    return this.#index;
  }

  /** The exchange for a request (its Accept header and body), or undefined. */
  async find(
    method: string,
    url: string,
    accept?: string,
    body?: Uint8Array,
  ): Promise<Loaded | undefined> {
    const index = await this.#load();
    const key = keyOf(method, url);
    let fields: Record<string, unknown> | undefined;
    const sent = () => {
      if (fields === undefined) {
        const text = new TextDecoder().decode(body ?? new Uint8Array());
        try {
          const parsed = JSON.parse(text);
          fields = parsed && typeof parsed === "object" ? parsed : {};
        } catch {
          // A form body (`grant_type=...&device_id=...`): its fields, as strings.
          fields = /^[^=&\s]+=/.test(text) ? Object.fromEntries(new URLSearchParams(text)) : {};
        }
      }
      return fields!;
    };
    const pick = (list: Loaded[] | undefined) =>
      list?.find(({ exchange }) =>
        Object.entries(exchange.request.body ?? {}).every(([k, v]) => sent()[k] === v)
      );
    return (accept !== undefined ? pick(index.get(`${key} ${accept}`)) : undefined) ??
      pick(index.get(key));
  }

  async #body(loaded: Loaded): Promise<Uint8Array> {
    const { response } = loaded.exchange;
    if (response.body !== undefined) return new TextEncoder().encode(response.body);
    if (response.bodyFile === undefined) return new Uint8Array();
    let path: string;
    if (response.bodyFile.startsWith("$SHARED/")) {
      if (!this.#shared) {
        throw new NetError(
          "replay_missing",
          `this recorded exchange needs PARKOUR_SHARED_DIR (real captures are not in the repository): ${response.bodyFile}`,
        );
      }
      path = `${this.#shared}/${response.bodyFile.slice("$SHARED/".length)}`;
    } else {
      path = `${loaded.file.slice(0, loaded.file.lastIndexOf("/"))}/${response.bodyFile}`;
    }
    const bytes = await Deno.readFile(path);
    const encoding = Object.entries(response.headers ?? {}).find(([k]) =>
      k.toLowerCase() === "content-encoding"
    )?.[1];
    return path.endsWith(".gz") && !/gzip/i.test(encoding ?? "") ? await gunzip(bytes) : bytes;
  }

  /** A transport serving the recorded responses. */
  transport(): Transport {
    return {
      name: "replay",
      pins: true,
      send: async (request): Promise<TransportResponse> => {
        const loaded = await this.find(
          request.method,
          request.url.href,
          request.headers.get("accept") ?? undefined,
          request.body,
        );
        if (!loaded) {
          const sent = request.body
            ? ` with body ${new TextDecoder().decode(request.body).slice(0, 200)}`
            : "";
          throw new NetError(
            "replay_missing",
            `no recorded exchange for ${request.method} ${request.url.href}${sent} in ${this.#dir}; ` +
              "record one with PARKOUR_RECORD_DIR on a machine with internet access",
            request.url.href,
          );
        }
        let bytes = await this.#body(loaded);
        const headers = new Headers(loaded.exchange.response.headers ?? {});
        let status = loaded.exchange.response.status;
        // A byte range of a recorded 200 is served as the server would: 206 with that slice.
        const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.get("range") ?? "");
        if (range && status === 200 && Number(range[1]) < bytes.length) {
          const from = Number(range[1]);
          const to = Math.min(bytes.length - 1, range[2] ? Number(range[2]) : bytes.length - 1);
          headers.set("content-range", `bytes ${from}-${to}/${bytes.length}`);
          headers.set("content-length", String(to - from + 1));
          bytes = bytes.slice(from, to + 1);
          status = 206;
        }
        return {
          status,
          headers,
          body: request.method === "HEAD" ? null : new Blob([bytes as BlobPart]).stream(),
          decoded: false,
          remoteAddress: request.addresses?.[0],
        };
      },
    };
  }

  /** A resolver answering with recorded addresses (or the public placeholder). */
  resolver(): Resolver {
    return {
      resolve: async (host) => {
        for (const list of (await this.#load()).values()) {
          for (const { exchange } of list) {
            if (exchange.address && new URL(exchange.request.url).hostname === host) {
              return [exchange.address];
            }
          }
        }
        return [PLACEHOLDER_ADDRESS];
      },
    };
  }
}

/** The top-level scalar fields of a JSON request body, which tell calls to one URL apart. */
function bodyFields(
  body: Uint8Array | undefined,
): { body?: Record<string, string | number | boolean> } {
  if (!body) return {};
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body));
    const fields = Object.fromEntries(
      Object.entries(parsed ?? {}).filter(([, v]) =>
        ["string", "number", "boolean"].includes(typeof v)
      ),
    ) as Record<string, string | number | boolean>;
    return Object.keys(fields).length > 0 ? { body: fields } : {};
  } catch {
    return {};
  }
}

function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

function slug(url: URL, method: string): string {
  const raw = `${method.toLowerCase()}_${url.hostname}${url.pathname}${url.search}`;
  return raw.replace(/[^a-zA-Z0-9._-]+/g, "_").replace(/_+/g, "_").slice(0, 120);
}

/**
 * Wraps a transport so every exchange is also written to `dir` as a fixture
 * (record mode). Bodies are stored as received, content encoding included.
 */
export function recordingTransport(inner: Transport, dir: string): Transport {
  return {
    name: `record(${inner.name})`,
    pins: inner.pins,
    send: async (request) => {
      const response = await inner.send(request);
      const bytes = response.body
        ? new Uint8Array(await new Response(response.body).arrayBuffer())
        : new Uint8Array();
      const fields = bodyFields(request.body);
      // Calls to one URL with different bodies are different exchanges.
      const name = slug(request.url, request.method) +
        (fields.body ? `_${fnv(JSON.stringify(fields.body))}` : "");
      await Deno.mkdir(dir, { recursive: true });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        if (!response.decoded || (key !== "content-encoding" && key !== "content-length")) {
          headers[key] = value;
        }
      });
      const exchange: Exchange = {
        request: { method: request.method, url: request.url.href, ...fields },
        response: { status: response.status, headers, bodyFile: `${name}.body` },
        address: response.remoteAddress,
        provenance: `recorded ${
          new Date().toISOString()
        } by parkour record mode from ${request.url.href}`,
      };
      await Deno.writeFile(`${dir}/${name}.body`, bytes);
      await Deno.writeTextFile(`${dir}/${name}.json`, JSON.stringify(exchange, null, 2) + "\n");
      return { ...response, body: new Blob([bytes as BlobPart]).stream() };
    },
  };
}
