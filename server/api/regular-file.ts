/**
 * Reads a file that must be a regular file directly inside `dir`: not a symlink (opened with
 * O_NOFOLLOW, so a link planted in the folder, say KILN_HOME/screenshots/<id>.png -> /etc/passwd,
 * is never followed), not a folder or device (checked on the open descriptor, so nothing can be
 * swapped in between), and `dir` itself resolving to where it should. Returns undefined for
 * anything else; the caller answers 404 as for a missing file.
 */
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import path from "node:path";

export async function readRegularFileInside(dir: string, name: string, maxBytes = 256 * 2 ** 20): Promise<Buffer | undefined> {
  if (name !== path.basename(name) || name === "." || name === "..") return undefined;
  let handle;
  try {
    const realDir = await realpath(dir);
    handle = await open(path.join(realDir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
