import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["server/**/*.test.ts", "app/**/*.test.ts", "tests/**/*.test.ts"],
    exclude: ["tests/e2e/**", "tests/interop/**", "node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
