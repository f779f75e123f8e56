/**
 * End-to-end tests of the recipe builder in Debian's Chromium (never `playwright install`: it
 * downloads browsers). The global setup starts the production service on a temp project folder
 * holding a copy of ./recipes, so saving from the builder never touches the repository.
 * Build first with your build folder: KILN_NEXT_DIST=.next-<name> npm run build.
 */
import { defineConfig } from "@playwright/test";

/** Flags for Chromium on these machines (ENVIRONMENT.md, "Browsers"): no network beyond localhost. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "tests/output/e2e/results",
  globalSetup: "./tests/e2e/global-setup.ts",
  // Generous: waits end as soon as their condition holds, so a quiet machine is not slowed, and a
  // loaded one (2 cores at load 25) does not fail a test for being slow (docs/hardening.md).
  timeout: 180_000,
  expect: { timeout: 30_000 },
  workers: 1,
  fullyParallel: false,
  reporter: [["list"]],
  use: {
    baseURL: process.env.KILN_E2E_URL,
    viewport: { width: 1280, height: 720 },
    launchOptions: { executablePath: process.env.KILN_CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS },
    screenshot: "only-on-failure",
    trace: "off",
  },
});
