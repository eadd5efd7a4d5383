import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A temporary XDG_CACHE_HOME for the whole run: no test writes embeddings into the real home cache.
    globalSetup: ["test/helpers/cache-home.ts"],
    // Each file's temporary folders are removed when its tests end.
    setupFiles: ["test/helpers/cleanup.ts"],
  },
});
