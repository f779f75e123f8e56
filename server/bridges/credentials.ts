/**
 * The project's bridge credentials: a token live applications present to connect, and the project
 * id they stamp into their files (docs/bridges.md). Generated on the first start and kept in
 * `.kiln/bridge.json`, readable by its owner only, because the token lets a program change scenes.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface BridgeCredentials { token: string; project: string }

export const credentialsFile = (home: string) => path.join(home, "bridge.json");

/** Reads the project's credentials, creating them (mode 0600) when there are none. */
export function loadBridgeCredentials(home: string): BridgeCredentials {
  const file = credentialsFile(home);
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as Partial<BridgeCredentials>;
    if (typeof saved.token === "string" && saved.token.length >= 32 && typeof saved.project === "string" && saved.project) {
      chmodSync(file, 0o600); // in case it was copied with looser rights
      return { token: saved.token, project: saved.project };
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" && !(e instanceof SyntaxError)) throw e;
  }
  const created = { token: randomBytes(32).toString("base64url"), project: randomUUID() };
  writeFileSync(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  chmodSync(file, 0o600);
  return created;
}
