import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["server/**/*.test.ts", "app/**/*.test.ts", "tests/**/*.test.ts"],
    exclude: ["tests/e2e/**", "tests/interop/**", "node_modules/**"],
    // A timeout is a time bound too: generous, so a loaded machine (2 cores at load 25, see
    // docs/hardening.md) only slows a test down instead of failing it; a hang still ends.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
