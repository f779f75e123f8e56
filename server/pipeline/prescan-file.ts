/**
 * Feeds a file to its format's pre-scan (formats/prescan.ts) in fixed-size chunks through one
 * reused buffer, so counting a file costs CHUNK bytes of memory however large it is, and a file
 * that breaks a limit is refused as soon as the scan reaches the place where it does.
 */
import { open } from "node:fs/promises";
import type { TransferFormat } from "./formats";
import { prescanFor } from "./formats/prescan";

const CHUNK = 1 << 20;

/**
 * Pre-scans `file` as `format` (nothing to do for formats without a pre-scan). Throws the
 * scanner's LimitError; `onRead` hears the bytes read so far after each chunk (tests use it to
 * see how far a refused file was read).
 */
export async function prescanFile(file: string, format: TransferFormat, onRead?: (bytes: number) => void): Promise<void> {
  const scan = prescanFor(format);
  if (!scan) return;
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(CHUNK);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      onRead?.(total);
      scan.push(buffer.subarray(0, bytesRead));
    }
    scan.end();
  } finally {
    await handle.close();
  }
}
