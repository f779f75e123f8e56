/**
 * What bin/kiln.js calls before serving: take the project, or exit 2 naming its owner. Loaded
 * with tsx's tsImport, so the plain-JS launcher needs no TypeScript of its own.
 */
import { loadConfig } from "../config";
import { tryClaimProject, type Ownership } from "./owner";

/** Claims the project of this process's environment for the service; exits 2 when it cannot. */
export async function claimForService(): Promise<Ownership> {
  let claim;
  try {
    claim = await tryClaimProject(loadConfig(), "kiln", { launcher: true });
  } catch (error) {
    console.error(`kiln: cannot open the project: ${(error as Error).message}`);
    process.exit(2);
  }
  if ("error" in claim) {
    console.error(`kiln: ${claim.error.message}`);
    process.exit(2);
  }
  return claim.ownership;
}
