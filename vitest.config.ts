import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A temporary XDG_CACHE_HOME for the whole run: no test writes embeddings into the real home cache.
    // And the optional engines must be installed (npm ci --workspaces --include-workspace-root), or the run stops at once.
    globalSetup: ["test/helpers/cache-home.ts", "test/helpers/optional-engines.ts"],
    // Each file's temporary folders are removed when its tests end.
    setupFiles: ["test/helpers/cleanup.ts"],
  },
});
