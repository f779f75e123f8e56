/**
 * Long strings in the operation log. A big mesh's arrays (base64, tens of MB) inside one
 * `changes` row made logging an import block the service for over a second: serialising the
 * parameter and the database's synchronous insert of one huge row. So strings of BLOB_MIN
 * characters or more leave the row: `changes` holds `{"$kilnBlob": [offset, length]}` into the
 * operation's blob text, which is written as OperationBlob parts of at most PART characters (the
 * writer uses 512 KiB), one statement each, so other requests are served between them.
 *
 * User data may itself hold an object with the marker's key (custom properties are free JSON), so
 * such objects are escaped as `{"$kilnEsc": object}` in rows written here. Rows written here say so
 * in `blobParts`; every other row is plain JSON and is read as such.
 */
import type { Db } from "../db/client";
import type { Change } from "../scene/types";

const BLOB_MIN = 256 * 1024;
export const PART = 1024 * 1024;
const MARK = "$kilnBlob";
const ESC = "$kilnEsc";

/** A serialised `changes`: the row's text, and when strings were pulled out, the blob's pieces. */
export interface SplitChanges { text: string; blob: string[] | null }

/** Only meshes and images carry long strings; everything else is serialised as plain JSON. */
function bulky(changes: Change[]): boolean {
  for (const c of changes) {
    for (const r of [c.before, c.after]) if (r && (r.type === "mesh" || r.type === "image")) return true;
  }
  return false;
}

/** Serialises an operation's changes, pulling long strings out of the row when there are any. */
export function splitChanges(changes: Change[]): SplitChanges {
  if (!bulky(changes)) return { text: JSON.stringify(changes), blob: null };
  const blob: string[] = [];
  let offset = 0;
  const escaped = new WeakSet<object>();
  const text = JSON.stringify(changes, (_key, value: unknown) => {
    if (typeof value === "string" && value.length >= BLOB_MIN) {
      blob.push(value);
      offset += value.length;
      return { [MARK]: [offset - value.length, value.length] };
    }
    if (value && typeof value === "object" && !Array.isArray(value) && !escaped.has(value) && (Object.hasOwn(value, MARK) || Object.hasOwn(value, ESC))) {
      escaped.add(value);
      return { [ESC]: value };
    }
    return value;
  });
  return { text, blob };
}

/** The parts (each at most `size` characters, PART unless said) a blob is written as. */
export function blobParts(blob: string[], size = PART): string[] {
  const parts: string[] = [];
  let current = "";
  for (const piece of blob) {
    for (let at = 0; at < piece.length; ) {
      const take = Math.min(size - current.length, piece.length - at);
      current += piece.slice(at, at + take);
      at += take;
      if (current.length === size) {
        parts.push(current);
        current = "";
      }
    }
  }
  if (current) parts.push(current);
  return parts;
}

/** Parses a row's `changes`; `blob` is its parts joined (empty when it has none). */
export function joinChanges(text: string, blob: string): Change[] {
  const restore = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(restore);
    if (!v || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === MARK) {
      const [at, length] = o[MARK] as [number, number];
      if (at + length > blob.length) throw new Error("kiln: operation log is missing part of a record's data");
      return blob.slice(at, at + length);
    }
    // An escaped object is user data: its own keys are not markers, its values may be.
    const inner = keys.length === 1 && keys[0] === ESC ? (o[ESC] as Record<string, unknown>) : o;
    const out: Record<string, unknown> = {};
    // defineProperty: a "__proto__" key from JSON is data, never the object's prototype.
    for (const k of Object.keys(inner)) Object.defineProperty(out, k, { value: restore(inner[k]), enumerable: true, writable: true, configurable: true });
    return out;
  };
  return restore(JSON.parse(text)) as Change[];
}

/** A logged operation's changes as stored: its row's text and whether it refers to blob parts. */
export interface StoredChanges { seq: number; changes: string; blobParts: number | null }

/** The changes of logged operations, in the order given, with their long strings read back. */
export async function readChanges(db: Db, rows: StoredChanges[]): Promise<Change[][]> {
  const withBlobs = rows.filter((r) => r.blobParts !== null).map((r) => r.seq);
  const blobs = new Map<number, string[]>();
  if (withBlobs.length) {
    const parts = await db.operationBlob.findMany({ where: { seq: { in: withBlobs } }, orderBy: [{ seq: "asc" }, { part: "asc" }] });
    for (const p of parts) {
      const list = blobs.get(p.seq) ?? [];
      list.push(p.data);
      blobs.set(p.seq, list);
    }
  }
  return rows.map((r) => (r.blobParts === null ? (JSON.parse(r.changes) as Change[]) : joinChanges(r.changes, (blobs.get(r.seq) ?? []).join(""))));
}

/** Drops blob parts no logged operation owns (written ahead of a row that a crash never wrote). */
export async function sweepBlobs(db: Db): Promise<void> {
  await db.$executeRaw`DELETE FROM "OperationBlob" WHERE "seq" > (SELECT COALESCE(MAX("seq"), 0) FROM "Operation")`;
}
