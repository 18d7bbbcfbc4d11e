/**
 * The library face in a process of its own (the page cache and the network
 * layer are per process): `fetchPage(url).read(request)` as JSON on stdout.
 * Usage: `library_read.ts URL REQUEST_JSON`.
 */
import { fetchPage } from "../../mod.ts";

const [url, request] = Deno.args;
const page = await fetchPage(url);
try {
  console.log(JSON.stringify(page.read(JSON.parse(request))));
} catch (error) {
  console.log(JSON.stringify({ error: (error as Error).message }));
}
