/**
 * The shared store on Redis or Valkey (`node-redis`).
 *
 * Values are binary strings under `parkour:v1:`; their lifetime is the page
 * cache's, and the byte bound is the server's `maxmemory` with an eviction
 * policy (`allkeys-lru`), as `docs/deploy.md` configures it. Locks are `SET
 * NX PX` with a random token, renewed while the holder works and released
 * only by their holder (a script compares the token). Request slots are
 * computed by a script on the server's clock, so replicas with skewed clocks
 * still space their requests.
 *
 * Every command has a short deadline: a store that stalls degrades to
 * "miss" instead of holding a request.
 *
 * @module
 */
import { createClient, RESP_TYPES } from "redis";
import { log } from "../log.ts";
import type { SharedStore } from "./shared.ts";

const PREFIX = "parkour:v1:";
const COMMAND_TIMEOUT_MS = 1500;

const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nxt)
local after = slot + tonumber(ARGV[1])
redis.call('SET', KEYS[1], after, 'PX', after - now + 60000)
return slot - now`;

const PUSH_BACK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local after = now + tonumber(ARGV[1])
if after > nxt then redis.call('SET', KEYS[1], after, 'PX', after - now + 60000) end
return 0`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

function connect(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 3000,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 3000),
    },
  });
}

type Client = ReturnType<typeof connect>;

function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the shared store did not answer ${what} in time`)),
        COMMAND_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The shared store on Redis. */
export class RedisStore implements SharedStore {
  readonly kind = "redis" as const;
  readonly where: string;
  readonly #client: Client;
  #warned = false;

  private constructor(client: Client, where: string) {
    this.#client = client;
    this.where = where;
  }

  /** Connects to `url`; fails with a message naming the address when it cannot. */
  static async open(url: string): Promise<RedisStore> {
    const where = url.replace(/\/\/[^@/]*@/, "//***@");
    const client = connect(url);
    let first = true;
    client.on("error", (error: Error) => {
      if (first) return;
      log("debug", `shared store ${where}: ${error.message}`);
    });
    try {
      await withDeadline(client.connect(), "the connection");
    } catch (error) {
      client.destroy();
      throw new Error(
        `cannot reach the shared store at ${where} (${
          (error as Error).message
        }); start Redis or Valkey there, or unset PARKOUR_CACHE to keep the cache in this process`,
      );
    }
    first = false;
    return new RedisStore(client, where);
  }

  #degraded(what: string, error: unknown): void {
    if (!this.#warned) {
      log(
        "warn",
        `shared store ${this.where} failed ${what}; serving from this process meanwhile`,
        error,
      );
      this.#warned = true;
    }
  }

  #ok(): void {
    if (this.#warned) {
      log("info", `shared store ${this.where} answers again`);
      this.#warned = false;
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const value = await withDeadline(
        this.#client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }).get(PREFIX + key),
        "a read",
      );
      this.#ok();
      return value ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : undefined;
    } catch (error) {
      this.#degraded("a read", error);
      return undefined;
    }
  }

  async set(key: string, value: Uint8Array, ttlMs: number): Promise<boolean> {
    try {
      await withDeadline(
        this.#client.set(
          PREFIX + key,
          Buffer.from(value.buffer, value.byteOffset, value.byteLength),
          {
            expiration: { type: "PX", value: Math.max(1, Math.round(ttlMs)) },
          },
        ),
        "a write",
      );
      this.#ok();
      return true;
    } catch (error) {
      this.#degraded("a write", error);
      return false;
    }
  }

  async lock(key: string, ttlMs: number): Promise<string | undefined> {
    const token = crypto.randomUUID();
    try {
      const reply = await withDeadline(
        this.#client.set(PREFIX + key, token, {
          condition: "NX",
          expiration: { type: "PX", value: Math.round(ttlMs) },
        }),
        "a lock",
      );
      return reply === "OK" ? token : undefined;
    } catch (error) {
      this.#degraded("a lock", error);
      // An unreachable store cannot coordinate: the caller works alone.
      return token;
    }
  }

  async renew(key: string, token: string, ttlMs: number): Promise<boolean> {
    try {
      const reply = await withDeadline(
        this.#client.eval(RENEW, {
          keys: [PREFIX + key],
          arguments: [token, String(Math.round(ttlMs))],
        }),
        "a lock renewal",
      );
      return reply === 1;
    } catch {
      return false;
    }
  }

  async unlock(key: string, token: string): Promise<void> {
    try {
      await withDeadline(
        this.#client.eval(UNLOCK, { keys: [PREFIX + key], arguments: [token] }),
        "an unlock",
      );
    } catch { /* the lock expires by itself */ }
  }

  async locked(key: string): Promise<boolean> {
    try {
      return (await withDeadline(this.#client.exists(PREFIX + key), "a lock check")) === 1;
    } catch {
      return false;
    }
  }

  async reserveSlot(key: string, intervalMs: number): Promise<number> {
    const reply = await withDeadline(
      this.#client.eval(RESERVE, {
        keys: [PREFIX + "slot:" + key],
        arguments: [String(intervalMs)],
      }),
      "a slot",
    );
    return Math.max(0, Number(reply));
  }

  async pushBack(key: string, waitMs: number): Promise<void> {
    await withDeadline(
      this.#client.eval(PUSH_BACK, {
        keys: [PREFIX + "slot:" + key],
        arguments: [String(Math.round(waitMs))],
      }),
      "a back-off",
    );
  }

  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      const started = performance.now();
      await withDeadline(this.#client.ping(), "a ping");
      return {
        ok: true,
        detail: `${this.where} answered in ${Math.round(performance.now() - started)} ms`,
      };
    } catch (error) {
      return { ok: false, detail: `${this.where}: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    try {
      await this.#client.close();
    } catch {
      this.#client.destroy();
    }
  }
}
