/**
 * Persistence of snapshot objects (tree nodes and records) with reference counts.
 *
 * An object's `refs` counts the versions, branch working bases and stored nodes that point at
 * it. Adding a root inserts what is new and counts references; releasing a root deletes what
 * nobody points at any more, recursively. This is how delete_version reclaims storage.
 */
import type { Db } from "../db/client";
import { EMPTY_ROOT, parseNode, type NodeSource, type StoredObject, type TreeNode } from "./tree";

type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

const CHUNK = 500;
const chunks = <T>(xs: T[]) => Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));

/** Caches parsed nodes by hash: content-addressed data never changes, so the cache never goes stale. */
export class ObjectStore {
  private nodes = new Map<string, TreeNode>();
  constructor(private db: Db) {
    this.remember([EMPTY_ROOT]);
  }

  /** Puts objects known to be stored (or about to be) into the cache. */
  remember(objects: StoredObject[]) {
    for (const o of objects) if (o.node) this.nodes.set(o.hash, o.node);
  }

  private cacheNode(hash: string, data: string) {
    if (this.nodes.size > 500_000) {
      this.nodes.clear();
      this.remember([EMPTY_ROOT]);
    }
    this.nodes.set(hash, parseNode(data));
  }

  /** Loads the nodes of a whole tree into the cache (skipping cached subtrees). */
  async loadTree(root: string): Promise<void> {
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
  }

  /** Synchronous node reader over the cache (call loadTree first). */
  readonly node: NodeSource = (hash) => {
    const n = this.nodes.get(hash);
    if (!n) throw new Error(`Snapshot node ${hash} is not loaded.`);
    return n;
  };

  /** Record data by hash. */
  async records(hashes: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunks([...new Set(hashes)])) {
      const rows = await this.db.snapshotObject.findMany({ where: { hash: { in: part } }, select: { hash: true, data: true } });
      for (const r of rows) out.set(r.hash, r.data);
    }
    return out;
  }

  /** Counts one more reference to each root, inserting the new objects among `created`. */
  async addRefs(tx: Tx, roots: string[], created: StoredObject[]): Promise<void> {
    const byHash = new Map(created.map((o) => [o.hash, o]));
    let pending = countAll(roots);
    while (pending.size) {
      const existing = new Set<string>();
      for (const part of chunks([...pending.keys()])) {
        const rows = await tx.snapshotObject.findMany({ where: { hash: { in: part } }, select: { hash: true } });
        for (const r of rows) existing.add(r.hash);
      }
      const next = new Map<string, number>();
      const inserts: { hash: string; data: string; refs: number; children: string }[] = [];
      const increments = new Map<number, string[]>();
      for (const [hash, n] of pending) {
        if (existing.has(hash)) {
          increments.set(n, [...(increments.get(n) ?? []), hash]);
          continue;
        }
        const obj = byHash.get(hash);
        if (!obj) throw new Error(`Snapshot object ${hash} is neither stored nor new.`);
        inserts.push({ hash, data: obj.data, refs: n, children: JSON.stringify(obj.children) });
        for (const c of obj.children) next.set(c, (next.get(c) ?? 0) + 1);
      }
      for (const part of chunks(inserts)) await tx.snapshotObject.createMany({ data: part });
      for (const [n, hashes] of increments)
        for (const part of chunks(hashes)) await tx.snapshotObject.updateMany({ where: { hash: { in: part } }, data: { refs: { increment: n } } });
      pending = next;
    }
  }

  /** Drops one reference from each root; deletes what reaches zero, and releases its children. */
  async release(tx: Tx, roots: string[]): Promise<number> {
    let pending = countAll(roots);
    let deleted = 0;
    while (pending.size) {
      const next = new Map<string, number>();
      for (const part of chunks([...pending.keys()])) {
        const rows = await tx.snapshotObject.findMany({ where: { hash: { in: part } }, select: { hash: true, refs: true, children: true } });
        const doomed: string[] = [];
        const decrements = new Map<number, string[]>();
        for (const r of rows) {
          const n = pending.get(r.hash)!;
          if (r.refs - n <= 0) {
            doomed.push(r.hash);
            for (const c of JSON.parse(r.children) as string[]) next.set(c, (next.get(c) ?? 0) + 1);
          } else decrements.set(n, [...(decrements.get(n) ?? []), r.hash]);
        }
        if (doomed.length) await tx.snapshotObject.deleteMany({ where: { hash: { in: doomed } } });
        for (const [n, hashes] of decrements) await tx.snapshotObject.updateMany({ where: { hash: { in: hashes } }, data: { refs: { decrement: n } } });
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
