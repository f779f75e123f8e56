/**
 * Persistence of snapshot objects (tree nodes and records) with reference counts.
 *
 * An object's `refs` counts the versions, branch working bases and stored nodes that point at
 * it. Adding a root inserts what is new and counts references; releasing a root deletes what
 * nobody points at any more, recursively. This is how delete_version reclaims storage.
 */
import type { Db } from "../db/client";
import { Prisma } from "../db/generated/sqlite/client";
import { offThreadInsert, type OffThreadInsert, type UnreferencedRow } from "../db/wal-checkpointer";
import type { SceneEntity } from "../scene/types";
import { EMPTY_ROOT, isHashRef, parseNode, type NodeSource, type RecordRef, type StoredObject, type TreeNode } from "./tree";

type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

const CHUNK = 500;
const chunks = <T>(xs: T[], size = CHUNK) => Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));

// Writes go as raw multi-row statements, a few thousand rows each: a first save of a big scene
// inserts every record, and per-row or 500-row query-builder calls cost more than the rows.
// Sizes stay under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters per statement.
// Lookups and reference updates of ~500 hashes take a few ms; 5,000 at once held SQLite's
// synchronous driver (and so every other client) for 150-200 ms in a big save.
const LOOKUP_ROWS = 500;
const INSERT_ROWS = 2000;
/** A statement runs synchronously on SQLite: about 1 MB of data keeps it to a few ms. */
const INSERT_CHARS = 1 << 20;
const inList = (hashes: string[]) => Prisma.join(hashes);
/**
 * Lets other clients in between statements: SQLite's driver runs a statement synchronously and
 * resolves at once, so a chain of awaited statements would otherwise hold the event loop for the
 * whole of a big save.
 */
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

type NewObject = { hash: string; data: string; refs: number; children: string };

async function existingHashes(tx: Tx, hashes: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(hashes, LOOKUP_ROWS)) {
    const rows = await tx.$queryRaw<{ hash: string }[]>(Prisma.sql`SELECT "hash" FROM "SnapshotObject" WHERE "hash" IN (${inList(part)})`);
    for (const r of rows) found.add(r.hash);
    if (hashes.length > LOOKUP_ROWS) await pause();
  }
  return found;
}

/** Setting keys under which a PackStream lists the packs it wrote until their save commits. */
const PENDING = "pending-packs/";

/** Below this much pack data, a save writes nothing ahead (its transaction inserts the packs). */
const PRE_WRITE_CHARS = 4 * INSERT_CHARS;

/** The stored rows among `hashes`: their reference counts. */
async function storedRows(tx: Tx, hashes: string[]): Promise<Map<string, { refs: number }>> {
  const found = new Map<string, { refs: number }>();
  for (const part of chunks(hashes, LOOKUP_ROWS)) {
    const rows = await tx.$queryRaw<{ hash: string; refs: number | bigint }[]>(Prisma.sql`SELECT "hash", "refs" FROM "SnapshotObject" WHERE "hash" IN (${inList(part)})`);
    for (const r of rows) found.set(r.hash, { refs: Number(r.refs) });
    if (hashes.length > LOOKUP_ROWS) await pause();
  }
  return found;
}

/** Splits rows into statements of at most INSERT_ROWS rows and `maxChars` characters of data. */
function insertBatches(objects: NewObject[], maxChars = INSERT_CHARS): NewObject[][] {
  const batches: NewObject[][] = [];
  let batch: NewObject[] = [];
  let chars = 0;
  for (const o of objects) {
    if (batch.length && (batch.length >= INSERT_ROWS || chars + o.data.length > maxChars)) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(o);
    chars += o.data.length;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

async function insertObjects(tx: Tx, objects: NewObject[]): Promise<void> {
  const batches = insertBatches(objects);
  for (const part of batches) {
    const values = part.map((o) => Prisma.sql`(${o.hash}, ${o.data}, ${o.refs}, ${o.children})`);
    await tx.$executeRaw(Prisma.sql`INSERT INTO "SnapshotObject" ("hash", "data", "refs", "children") VALUES ${Prisma.join(values)}`);
    if (batches.length > 1) await pause();
  }
}

/**
 * Adds to the reference count of each object its amount (negative to subtract): one statement
 * per LOOKUP_ROWS objects, the amounts in a CASE when they differ.
 */
async function addToRefs(tx: Tx, amounts: Map<string, number>): Promise<void> {
  const entries = [...amounts].filter(([, by]) => by !== 0);
  for (const part of chunks(entries, LOOKUP_ROWS)) {
    const same = part.every(([, by]) => by === part[0][1]);
    const by = same
      ? Prisma.sql`CAST(${part[0][1]} AS INTEGER)`
      : Prisma.sql`CASE "hash" ${Prisma.join(part.map(([h, n]) => Prisma.sql`WHEN ${h} THEN CAST(${n} AS INTEGER)`), " ")} END`;
    await tx.$executeRaw(Prisma.sql`UPDATE "SnapshotObject" SET "refs" = "refs" + ${by} WHERE "hash" IN (${inList(part.map(([h]) => h))})`);
    if (entries.length > LOOKUP_ROWS) await pause();
  }
}

/** Caches parsed nodes by hash: content-addressed data never changes, so the cache never goes stale. */
export class ObjectStore {
  private nodes = new Map<string, TreeNode>();
  /** Characters of stored data behind the cached nodes (packs hold record texts). */
  private cachedChars = 0;
  /** Roots whose whole tree is in the cache (a save after one change need not walk 4,400 nodes). */
  private loaded = new Set<string>();
  constructor(private db: Db) {
    this.remember([EMPTY_ROOT]);
  }

  /** Puts objects known to be stored (or about to be) into the cache. */
  remember(objects: StoredObject[]) {
    for (const o of objects) {
      if (!o.node || this.nodes.has(o.hash)) continue;
      this.nodes.set(o.hash, o.node);
      this.cachedChars += o.data.length;
    }
  }

  private cacheNode(hash: string, data: string) {
    // A bound on memory (about 15 snapshots of 100,000 distinct records); in practice versions
    // share most packs, so one scene's history fits.
    if (this.cachedChars > 512 * 2 ** 20 || this.nodes.size > 500_000) {
      this.nodes.clear();
      this.loaded.clear();
      this.cachedChars = 0;
      this.remember([EMPTY_ROOT]);
    }
    this.nodes.set(hash, parseNode(data));
    this.cachedChars += data.length;
  }

  /** Loads the nodes of a whole tree into the cache (skipping cached subtrees). */
  async loadTree(root: string): Promise<void> {
    if (this.loaded.has(root)) return;
    let frontier = [root];
    while (frontier.length) {
      const missing = frontier.filter((h) => !this.nodes.has(h));
      for (const part of chunks(missing)) {
        const rows = await this.db.snapshotObject.findMany({ where: { hash: { in: part } }, select: { hash: true, data: true } });
        for (const r of rows) this.cacheNode(r.hash, r.data);
      }
      const next: string[] = [];
      for (const h of frontier) {
        const n = this.nodes.get(h);
        if (!n) throw new Error(`Snapshot object ${h} is missing from the database.`);
        if (n.kind === "node") next.push(...Object.values(n.children));
      }
      frontier = next;
    }
    this.loaded.add(root);
  }

  /** Synchronous node reader over the cache (call loadTree first). */
  readonly node: NodeSource = (hash) => {
    const n = this.nodes.get(hash);
    if (!n) throw new Error(`Snapshot node ${hash} is not loaded.`);
    return n;
  };

  /** Records by ref: a pack's record is its own ref; a legacy record is read from the database. */
  async records(refs: RecordRef[]): Promise<Map<RecordRef, SceneEntity>> {
    const out = new Map<RecordRef, SceneEntity>();
    const hashes = new Set<string>();
    for (const ref of refs) {
      if (isHashRef(ref)) hashes.add(ref);
      else out.set(ref, ref);
    }
    for (const part of chunks([...hashes])) {
      const rows = await this.db.snapshotObject.findMany({ where: { hash: { in: part } }, select: { hash: true, data: true } });
      for (const r of rows) out.set(r.hash, JSON.parse(r.data) as SceneEntity);
    }
    return out;
  }

  /**
   * Writes the new childless objects among `created` (packs) ahead of a save's transaction, with
   * no reference yet, each statement committing on its own: a save of 100,000 records would
   * otherwise commit ~35 MB at once, and SQLite's commit (fsync) holds the event loop for all of
   * it. The save's transaction then only counts references to them (addRefs finds them stored).
   * Returns what it wrote, for `dropUnreferenced` if the save fails. Rows left with no reference
   * by a crash are removed at the next start (`sweep`). On SQLite a save uses `packStream` instead.
   */
  async preWrite(created: StoredObject[]): Promise<string[]> {
    const leaves = created.filter((o) => o.children.length === 0);
    if (leaves.reduce((n, o) => n + o.data.length, 0) < PRE_WRITE_CHARS) return [];
    const existing = await existingHashes(this.db, leaves.map((o) => o.hash));
    const fresh = leaves.filter((o) => !existing.has(o.hash)).map((o) => ({ hash: o.hash, data: o.data, refs: 0, children: "[]" }));
    const written: string[] = [];
    try {
      for (const part of insertBatches(fresh)) {
        await insertObjects(this.db, part);
        written.push(...part.map((o) => o.hash));
        await pause();
      }
    } catch (error) {
      await this.dropUnreferenced(written).catch(() => undefined);
      throw error;
    }
    return written;
  }

  /**
   * On SQLite, a stream of a big save's packs to the writer thread while the tree is still being
   * rebuilt: the thread inserts them on the other core meanwhile, already counted (see
   * PackStream). Undefined elsewhere (use preWrite).
   */
  packStream(): PackStream | undefined {
    const insert = offThreadInsert(this.db);
    return insert && new PackStream(insert, (hashes) => this.dropPending(hashes));
  }

  /**
   * Undoes a PackStream whose save did not commit: deletes the packs it wrote (counted for a
   * save that never referenced them) and their pending lists.
   */
  async dropPending(hashes: string[]): Promise<void> {
    for (const part of chunks(hashes, LOOKUP_ROWS))
      await this.db.$executeRaw(Prisma.sql`DELETE FROM "SnapshotObject" WHERE "refs" <= 1 AND "hash" IN (${inList(part)})`);
    await this.db.$executeRaw(Prisma.sql`DELETE FROM "Setting" WHERE "key" LIKE ${`${PENDING}%`}`);
  }

  /** Deletes objects of `hashes` that nothing references (a failed save's pre-written packs). */
  async dropUnreferenced(hashes: string[]): Promise<void> {
    for (const part of chunks(hashes, LOOKUP_ROWS))
      await this.db.$executeRaw(Prisma.sql`DELETE FROM "SnapshotObject" WHERE "refs" = 0 AND "hash" IN (${inList(part)})`);
  }

  /**
   * Removes what a save that a crash cut off wrote ahead: objects nothing references (preWrite)
   * and the packs listed as pending (PackStream). Returns how many objects it deleted.
   */
  async sweep(): Promise<number> {
    const lists = await this.db.setting.findMany({ where: { key: { startsWith: PENDING } } });
    const pending = lists.flatMap((l) => JSON.parse(l.value) as string[]);
    let deleted = 0;
    for (const part of chunks(pending, LOOKUP_ROWS))
      deleted += await this.db.$executeRaw(Prisma.sql`DELETE FROM "SnapshotObject" WHERE "refs" <= 1 AND "hash" IN (${inList(part)})`);
    if (lists.length) await this.db.setting.deleteMany({ where: { key: { startsWith: PENDING } } });
    return deleted + (await this.db.$executeRaw(Prisma.sql`DELETE FROM "SnapshotObject" WHERE "refs" = 0`));
  }

  /**
   * Counts one more reference to each root, inserting the new objects among `created`. Which of
   * them are stored already is asked once, for the roots, the new objects and their children
   * (the only hashes the walk can reach), and the walk itself runs in memory: a save after one
   * change then costs three statements here instead of three per trie level. `written`: hashes
   * known to be stored already (what preWrite wrote), not asked again.
   */
  async addRefs(tx: Tx, roots: string[], created: StoredObject[], written: string[] = []): Promise<void> {
    await this.addAndRelease(tx, roots, created, written, []);
  }

  /**
   * addRefs, then release of `released` (a save moves the branch's working base), in as few
   * statements as it can: the stored rows of both are read by one query, and when no released
   * object reaches zero (the usual case: its version still holds it) every reference count
   * changes in one statement. A save after one change then costs four statements here (one
   * round trip each on PostgreSQL) instead of six. `counted`: packs a PackStream wrote with their
   * reference counted already; the save's commit makes them permanent (their pending lists go).
   * Returns how many objects were deleted.
   */
  async addAndRelease(tx: Tx, roots: string[], created: StoredObject[], written: string[], released: string[], counted: string[] = []): Promise<number> {
    const byHash = new Map(created.map((o) => [o.hash, o]));
    const preCounted = new Set(counted);
    const known = new Set([...written, ...counted]);
    const reachable = new Set([...roots, ...released]);
    for (const o of created) {
      reachable.add(o.hash);
      for (const c of o.children) reachable.add(c);
    }
    const rows = await storedRows(tx, [...reachable].filter((h) => !known.has(h)));
    const stored = new Set([...rows.keys(), ...known]);
    const inserts = new Map<string, NewObject>();
    const increments = new Map<string, number>();
    let pending = countAll(roots);
    while (pending.size) {
      const next = new Map<string, number>();
      for (const [hash, n] of pending) {
        if (stored.has(hash)) {
          increments.set(hash, (increments.get(hash) ?? 0) + n - (preCounted.has(hash) ? 1 : 0));
          continue;
        }
        const inserted = inserts.get(hash);
        if (inserted) {
          inserted.refs += n; // reached again (two roots, or two parents): its children are counted once
          continue;
        }
        const obj = byHash.get(hash);
        if (!obj) throw new Error(`Snapshot object ${hash} is neither stored nor new.`);
        inserts.set(hash, { hash, data: obj.data, refs: n, children: JSON.stringify(obj.children) });
        for (const c of obj.children) next.set(c, (next.get(c) ?? 0) + 1);
      }
      pending = next;
    }
    await insertObjects(tx, [...inserts.values()]);
    // Released roots that keep a reference fold into the same update; one reaching zero takes
    // the general path (deleting, then releasing its children).
    const drops = countAll(released);
    const survives = [...drops].every(([hash, n]) => {
      const before = rows.get(hash)?.refs;
      return before !== undefined && before + (increments.get(hash) ?? 0) - n > 0;
    });
    if (survives) for (const [hash, n] of drops) increments.set(hash, (increments.get(hash) ?? 0) - n);
    await addToRefs(tx, increments);
    if (counted.length) await tx.$executeRaw(Prisma.sql`DELETE FROM "Setting" WHERE "key" LIKE ${`${PENDING}%`}`);
    return survives ? 0 : this.release(tx, released);
  }

  /** Drops one reference from each root; deletes what reaches zero, and releases its children. */
  async release(tx: Tx, roots: string[]): Promise<number> {
    let pending = countAll(roots);
    let deleted = 0;
    while (pending.size) {
      const next = new Map<string, number>();
      for (const part of chunks([...pending.keys()], LOOKUP_ROWS)) {
        const rows = await tx.$queryRaw<{ hash: string; refs: number | bigint; children: string }[]>(
          Prisma.sql`SELECT "hash", "refs", "children" FROM "SnapshotObject" WHERE "hash" IN (${inList(part)})`,
        );
        const doomed: string[] = [];
        const decrements = new Map<string, number>();
        for (const r of rows) {
          const n = pending.get(r.hash)!;
          if (Number(r.refs) - n <= 0) {
            doomed.push(r.hash);
            for (const c of JSON.parse(r.children) as string[]) next.set(c, (next.get(c) ?? 0) + 1);
          } else decrements.set(r.hash, -n);
        }
        for (const gone of chunks(doomed, LOOKUP_ROWS)) await tx.$executeRaw(Prisma.sql`DELETE FROM "SnapshotObject" WHERE "hash" IN (${inList(gone)})`);
        await addToRefs(tx, decrements);
        deleted += doomed.length;
      }
      pending = next;
    }
    return deleted;
  }
}

function countAll(hashes: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const h of hashes) m.set(h, (m.get(h) ?? 0) + 1);
  return m;
}

/**
 * A save's new packs on their way to the writer thread (db/wal-checkpointer.ts), in batches of
 * INSERT_CHARS: posting one copies its strings on the event loop (~1 ms per MB, so batches stay
 * small), and the thread commits each, so a write of another part of Kiln waits for one batch at
 * most. Nothing is sent before PRE_WRITE_CHARS have come (less is left to the save's
 * transaction), and the last full batch is held back so that the last one sent, fsynced,
 * carries data.
 *
 * The packs are written with their one reference counted (refs = 1: the new parent node that
 * the save's transaction inserts), so that transaction need not rewrite ~4,000 rows to count
 * them (it held the event loop ~100 ms, and its commit fsynced their pages again). Until the save
 * commits, each batch lists what it wrote under a pending Setting key (in the batch's own
 * transaction); the save's transaction deletes the lists, a failed save deletes the packs
 * (`dropPending`), and after a crash the next start does (`sweep`).
 */
export class PackStream {
  private sent: Promise<string[]>[] = [];
  private held: UnreferencedRow[][] = [];
  private buffer: UnreferencedRow[] = [];
  private chars = 0;
  private total = 0;
  constructor(private insert: OffThreadInsert, private drop: (hashes: string[]) => Promise<void>) {}

  /** Takes a created object; only packs (no children) are pre-written. */
  readonly add = (o: StoredObject): void => {
    if (o.children.length) return;
    this.buffer.push({ hash: o.hash, data: o.data });
    this.chars += o.data.length;
    this.total += o.data.length;
    if (this.chars < INSERT_CHARS) return;
    this.held.push(this.buffer);
    this.buffer = [];
    this.chars = 0;
    if (this.total >= PRE_WRITE_CHARS) while (this.held.length > 1) this.post(this.held.shift()!, false);
  };

  private post(rows: UnreferencedRow[], sync: boolean) {
    const p = this.insert(rows, { sync, refs: 1, pending: `${PENDING}${this.sent.length}` });
    p.catch(() => undefined); // looked at in settle()
    this.sent.push(p);
  }

  /**
   * Sends what is left (the last batch fsynced: the batches before it become durable with it)
   * and waits for the thread. Resolves to the hashes written, for `dropUnreferenced` if the save
   * fails; on a failure, drops what was written and rejects.
   */
  async finish(): Promise<string[]> {
    if (this.total < PRE_WRITE_CHARS) return [];
    const last = [...this.held.splice(0).flat(), ...this.buffer];
    this.buffer = [];
    if (last.length) this.post(last, true);
    return this.settle();
  }

  /** The save failed before finishing: waits for what was sent and drops it. */
  async abort(): Promise<void> {
    await this.settle().catch(() => undefined);
  }

  private async settle(): Promise<string[]> {
    const results = await Promise.allSettled(this.sent);
    const written = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) {
      await this.drop(written).catch(() => undefined);
      throw failed.reason;
    }
    return written;
  }
}
