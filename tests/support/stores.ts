/**
 * A `redis-server` and a PostgreSQL cluster started by a test on
 * 127.0.0.1 (free ports, temporary directories), for the replica tests.
 * `.ci/run` installs both from Debian; without them the tests that need
 * them are ignored with a printed reason.
 *
 * @module
 */

function which(candidates: string[]): string | undefined {
  for (const path of candidates) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not there */ }
  }
  return undefined;
}

function postgresBin(): string | undefined {
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name).sort()
      .reverse();
    for (const v of versions) {
      const dir = `/usr/lib/postgresql/${v}/bin`;
      if (which([`${dir}/initdb`]) && which([`${dir}/pg_ctl`])) return dir;
    }
  } catch { /* none */ }
  return undefined;
}

/** Path of redis-server, if installed. */
export const REDIS_SERVER = which(["/usr/bin/redis-server", "/usr/local/bin/redis-server"]);
/** Folder of PostgreSQL's initdb and pg_ctl, if installed. */
export const POSTGRES_BIN = postgresBin();

/** Why the store tests are ignored here ("" when they can run). */
export const NO_STORES = [
  REDIS_SERVER ? "" : "redis-server is not installed (apt-get install redis-server)",
  POSTGRES_BIN ? "" : "PostgreSQL is not installed (apt-get install postgresql)",
].filter(Boolean).join("; ");

if (NO_STORES) console.log(`replica tests skipped: ${NO_STORES}`);

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitForPort(port: number, ms = 15000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

/** A running redis-server. */
export interface RunningRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts redis-server with no persistence and an LRU bound of `maxMemoryMb`. */
export async function startRedis(maxMemoryMb = 256): Promise<RunningRedis> {
  const port = freePort();
  const child = new Deno.Command(REDIS_SERVER!, {
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--maxmemory",
      `${maxMemoryMb}mb`,
      "--maxmemory-policy",
      "allkeys-lru",
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitForPort(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

/** A running PostgreSQL cluster. */
export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

function asPostgresUser(): string[] {
  // initdb refuses to run as root: run it as the postgres account Debian creates.
  return Deno.uid() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
}

async function run(argv: string[]): Promise<void> {
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(`${argv.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Creates a throw-away cluster (trust authentication on 127.0.0.1) and starts it. */
export async function startPostgres(): Promise<RunningPostgres> {
  const dir = await Deno.makeTempDir({ prefix: "parkour-pg-" });
  const prefix = asPostgresUser();
  if (prefix.length > 0) await run(["chown", "postgres", dir]);
  const port = freePort();
  const data = `${dir}/data`;
  await run([
    ...prefix,
    `${POSTGRES_BIN}/initdb`,
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "parkour",
    "--no-sync",
  ]);
  await run([
    ...prefix,
    `${POSTGRES_BIN}/pg_ctl`,
    "-D",
    data,
    "-o",
    `-p ${port} -k ${dir} -h 127.0.0.1 -F`,
    "-l",
    `${dir}/log`,
    "-w",
    "start",
  ]);
  return {
    url: `postgres://parkour@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await run([...prefix, `${POSTGRES_BIN}/pg_ctl`, "-D", data, "-m", "immediate", "stop"]).catch(
        () => {},
      );
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
