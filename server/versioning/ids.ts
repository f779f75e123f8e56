/** Version ids: "v" + the version number, zero-padded to at least three digits. */
import { invalid } from "../errors";

export function versionId(n: number): string {
  return `v${String(n).padStart(3, "0")}`;
}

/** The number of a version id; 400 INVALID_VERSION_ID for any other shape. */
export function parseVersionId(id: string, field = "version_id"): number {
  const m = /^v(\d{1,9})$/.exec(id);
  if (!m || Number(m[1]) < 1)
    throw invalid("INVALID_VERSION_ID", `"${id}" is not a version id; version ids look like v001.`, { field });
  return Number(m[1]);
}

/** Branch names: letters, digits, - _ . /, 1-100 characters. */
export const BRANCH_NAME = /^[A-Za-z0-9._/-]{1,100}$/;
