/**
 * The project's machine-local team secrets, kept in `.kiln/team.json` (mode 0600, like the bridge's
 * `.kiln/bridge.json`): the secret that signs session cookies, and the operator credential with
 * which `kiln users` and `kiln token` administer a running service from this machine
 * (docs/teams.md, "The command line"). Whoever can read this file can read the project's SQLite
 * database too, so the operator credential grants nothing that the file system does not already.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface TeamFile {
  /** Signs and checks session cookies (better-auth's `secret`). */
  secret: string;
  /** `Authorization: Bearer <operator>` from this machine acts as the operator (an owner). */
  operator: string;
}

export const teamFile = (home: string) => path.join(home, "team.json");

/** The secrets, when the file exists and is well-formed. */
export function readTeamFile(home: string): TeamFile | null {
  try {
    const saved = JSON.parse(readFileSync(teamFile(home), "utf8")) as Partial<TeamFile>;
    if (typeof saved.secret === "string" && saved.secret.length >= 32 && typeof saved.operator === "string" && saved.operator.length >= 32)
      return { secret: saved.secret, operator: saved.operator };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" && !(e instanceof SyntaxError)) throw e;
  }
  return null;
}

/** Reads the secrets, creating them (mode 0600) on first use. */
export function loadTeamFile(home: string): TeamFile {
  const file = teamFile(home);
  const saved = readTeamFile(home);
  if (saved) {
    chmodSync(file, 0o600); // in case it was copied with looser rights
    return saved;
  }
  mkdirSync(home, { recursive: true });
  const created: TeamFile = { secret: randomBytes(32).toString("base64url"), operator: `kiln_op_${randomBytes(32).toString("base64url")}` };
  writeFileSync(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  chmodSync(file, 0o600);
  return created;
}
