/**
 * `.kiln/service.json`: written by `kiln` (bin/kiln.js) once it listens, removed when it stops.
 * The CLI reads it so that `kiln --run-recipe` sends its steps to a service that already serves
 * this project: running in-process next to it would change the database behind the service's
 * in-memory working state, and the two would diverge.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** File name inside the project's data folder (KILN_HOME, default ./.kiln). */
export const SERVICE_FILE = "service.json";

/** What a running service says about itself. */
export interface ServiceInfo {
  pid: number;
  url: string;
}

/** True when a process with that id exists (EPERM: it exists but belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The service serving the project whose data folder is `home`, or undefined when there is none:
 * no file, a malformed file, or a process that no longer exists (a service that was killed).
 */
export function runningService(home: string): ServiceInfo | undefined {
  let info: Partial<ServiceInfo>;
  try {
    info = JSON.parse(readFileSync(join(home, SERVICE_FILE), "utf8"));
  } catch {
    return undefined;
  }
  const { pid, url } = info ?? {};
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  if (typeof url !== "string" || !/^https?:\/\/[^/\s]+\/?$/.test(url)) return undefined;
  return isProcessAlive(pid) ? { pid, url } : undefined;
}
