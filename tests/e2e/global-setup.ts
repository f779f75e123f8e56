/**
 * Starts Kiln once for the e2e run: production build (KILN_NEXT_DIST, default .next), a temp
 * project folder with a copy of ./recipes plus the e2e fixtures, and a temp HOME so no real
 * user-wide recipe shows up. Tests find the service at KILN_E2E_URL and the project at
 * KILN_E2E_PROJECT; the returned function stops the service and removes the folders.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, startServer } from "../helpers/server";

export default async function globalSetup() {
  const project = mkdtempSync(path.join(tmpdir(), "kiln-e2e-project-"));
  const home = mkdtempSync(path.join(tmpdir(), "kiln-e2e-home-"));
  cpSync(path.join(ROOT, "recipes"), path.join(project, "recipes"), { recursive: true });
  cpSync(path.join(ROOT, "tests/e2e/fixtures"), path.join(project, "recipes"), { recursive: true });
  mkdirSync(path.join(home, ".kiln", "recipes"), { recursive: true });
  cpSync(path.join(ROOT, "tests/e2e/fixtures-user"), path.join(home, ".kiln", "recipes"), { recursive: true });
  const server = await startServer({
    cwd: project,
    env: { KILN_NEXT_DIST: process.env.KILN_NEXT_DIST ?? ".next", HOME: home },
  });
  process.env.KILN_E2E_URL = server.url;
  process.env.KILN_E2E_PROJECT = project;
  return async () => {
    await server.stop();
    rmSync(project, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  };
}
