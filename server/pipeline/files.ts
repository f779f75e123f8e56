/**
 * Where pipeline files live and how they are written and read: every transfer writes its files
 * under <KILN_HOME>/assets/<transfer_id>/, and every import reads a file back from disk.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** A written file as results describe it. */
export interface FileInfo { path: string; bytes: number; sha256: string }

/** The folder of exported and transferred assets. */
export const assetsDir = (home: string) => path.join(home, "assets");

/**
 * A file-name stem from an asset name: letters, digits, `-`, `_` and `.` kept, anything else `_`,
 * at most 100 characters, never empty or dot-led (so never `..` or a hidden file).
 */
export function fileStem(name: string): string {
  const stem = name.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 100);
  return stem || "asset";
}

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * Writes files into `dir` (created; an existing file is never overwritten); returns what was
 * written. All or nothing: when one write fails (the disk is full), the files already written
 * and the part of the failed one are removed.
 */
export async function writeFiles(dir: string, files: { name: string; bytes: Uint8Array }[]): Promise<FileInfo[]> {
  await mkdir(dir, { recursive: true });
  const targets = files.map((f) => path.join(dir, f.name));
  const writes = await Promise.allSettled(files.map((f, i) => writeFile(targets[i], f.bytes, { flag: "wx" })));
  const failed = writes.find((w): w is PromiseRejectedResult => w.status === "rejected");
  if (failed) {
    // Not a file that existed before (EEXIST): "wx" left that one untouched.
    const ours = (w: PromiseSettledResult<void>) => w.status === "fulfilled" || (w.reason as NodeJS.ErrnoException)?.code !== "EEXIST";
    await Promise.all(targets.map((t, i) => (ours(writes[i]) ? rm(t, { force: true }) : undefined)));
    throw failed.reason;
  }
  return files.map((f, i) => ({ path: targets[i], bytes: f.bytes.length, sha256: sha256(f.bytes) }));
}

/** Reads files back from disk into the name → bytes map the decoders take. */
export async function readFiles(paths: string[]): Promise<Map<string, Uint8Array>> {
  const entries = await Promise.all(paths.map(async (p) => [path.basename(p), new Uint8Array(await readFile(p))] as const));
  return new Map(entries);
}
