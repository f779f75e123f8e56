/**
 * Feeds a file to its format's pre-scan (formats/prescan.ts) in fixed-size chunks through one
 * reused buffer, so counting a file costs CHUNK bytes of memory however large it is, and a file
 * that breaks a limit is refused as soon as the scan reaches the place where it does.
 */
import { open } from "node:fs/promises";
import type { TransferFormat } from "./formats";
import { LimitError } from "./formats";
import { prescanFor } from "./formats/prescan";

const CHUNK = 1 << 20;

/**
 * Pre-scans `file` as `format` (nothing to do for formats without a pre-scan). Throws the
 * scanner's LimitError; `onRead` hears the bytes read so far after each chunk (tests use it to
 * see how far a refused file was read).
 */
export async function prescanFile(file: string, format: TransferFormat, onRead?: (bytes: number) => void): Promise<void> {
  if (format === "fbx") return fbxOutline(file);
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

const FBX_MAGIC = Buffer.concat([Buffer.from("Kaydara FBX Binary  \0", "latin1"), Buffer.from([0x1a, 0x00])]);
/** Bytes after the last top-level node: the footer the FBX SDK writes takes ~180, padding included. */
const FBX_FOOTER_MAX = 4096;
/** Top-level nodes followed (files have about ten); past these the reader's own limits take over. */
const FBX_TOP_NODES = 1000;

/**
 * A binary FBX's outline, read record header by record header (25 bytes each) without reading
 * the file: the top-level nodes must chain forward inside the file and end with the null record
 * and a footer. The reader reads the file whole and stops at that null record, so whatever
 * follows it (600 MB of zeros after a valid header) would be read for nothing: refused here.
 * ASCII FBX has no outline to follow; its own size cap (LIMITS.fbxTextBytes) bounds it.
 */
async function fbxOutline(file: string): Promise<void> {
  const handle = await open(file, "r");
  try {
    const size = (await handle.stat()).size;
    const head = Buffer.alloc(FBX_MAGIC.length + 4);
    await handle.read(head, 0, head.length, 0);
    if (!head.subarray(0, FBX_MAGIC.length).equals(FBX_MAGIC)) return;
    const wide = head.readUInt32LE(FBX_MAGIC.length) >= 7500;
    const record = Buffer.alloc(wide ? 25 : 13);
    let at = head.length;
    for (let k = 0; k < FBX_TOP_NODES; k++) {
      const { bytesRead } = await handle.read(record, 0, record.length, at);
      if (bytesRead < record.length) throw new Error(`fbx: corrupt file at byte ${at}: unexpected end of file`);
      const end = wide ? Number(record.readBigUInt64LE(0)) : record.readUInt32LE(0);
      if (end === 0) {
        const trailing = size - (at + record.length);
        if (trailing > FBX_FOOTER_MAX) throw new LimitError(`fbx: the file holds ${trailing} bytes after its last node; an FBX footer takes at most ${FBX_FOOTER_MAX}`);
        return;
      }
      if (end <= at || end > size) throw new Error(`fbx: corrupt file at byte ${at}: a top-level node ends at byte ${end}, outside the file of ${size} bytes`);
      at = end;
    }
  } finally {
    await handle.close();
  }
}
