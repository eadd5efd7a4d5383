import { homedir } from "node:os";
import { join } from "node:path";

/** metatools' folder under the user's cache ($XDG_CACHE_HOME, else ~/.cache): embeddings, word vectors, snapshots. */
export function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "metatools");
}
