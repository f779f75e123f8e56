import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

/** `npm run test:interop`: the tests that drive real applications (Blender) against the running service. */
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["tests/interop/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
