/**
 * Content-addressed snapshots of the working state, as a fixed-depth hash trie (like git trees).
 *
 * A record's place is the first DEPTH hex digits of sha256(record id); internal nodes map a hex
 * digit to a child hash, leaves map record ids to record hashes. A version is one root hash.
 * Changing one record rewrites one leaf and DEPTH internal nodes (~3 KB), so storage grows with
 * what changed, not with the scene; equal subtrees are shared between all versions.
 */
import { hash } from "node:crypto";
import { canonicalJson } from "../scene/canonical-json";
import type { SceneEntity } from "../scene/types";

export const DEPTH = 3;

export type TreeNode =
  | { kind: "node"; children: Record<string, string> }
  | { kind: "leaf"; entries: Record<string, string> };

/** A stored object: a tree node or a record, by its content hash. */
export interface StoredObject { hash: string; data: string; children: string[]; node?: TreeNode }

/** 128-bit hex content hash. (crypto.hash: one call, no Hash object per record.) */
export function contentHash(text: string): string {
  return hash("sha256", text, "hex").slice(0, 32);
}

const pathCache = new Map<string, string>();
/** The trie path of a record id (its first DEPTH hash digits). */
export function recordPath(id: string): string {
  let p = pathCache.get(id);
  if (!p) {
    p = hash("sha256", id, "hex").slice(0, DEPTH);
    if (pathCache.size > 200_000) pathCache.clear();
    pathCache.set(id, p);
  }
  return p;
}

/** Serialises a record and hashes it. */
export function recordObject(record: SceneEntity): StoredObject {
  const data = canonicalJson(record);
  return { hash: contentHash(data), data, children: [] };
}

function nodeObject(node: TreeNode): StoredObject {
  const data = canonicalJson(node);
  const children = node.kind === "node" ? Object.values(node.children) : Object.values(node.entries);
  return { hash: contentHash(data), data, children, node };
}

export const EMPTY_ROOT = nodeObject({ kind: "node", children: {} });

/** Parses a stored node. */
export function parseNode(data: string): TreeNode {
  return JSON.parse(data) as TreeNode;
}

/** Reads nodes by hash (from memory or the database). */
export type NodeSource = (hash: string) => TreeNode;

/**
 * Applies record changes (id → new record hash, or null for removed) to the tree at `root`.
 * Returns the new root and the nodes it created; untouched subtrees are reused by hash.
 */
export function updateTree(root: string, changes: Map<string, string | null>, get: NodeSource): { root: string; created: StoredObject[] } {
  const steps = rebuildTree(root, changes, get);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * updateTree for big change sets: pauses between the root's subtrees (1/16 of the work each),
 * so that other clients are served meanwhile. `get` must stay valid across the pauses.
 */
export async function updateTreeInSlices(root: string, changes: Map<string, string | null>, get: NodeSource, pause: () => Promise<void>): Promise<{ root: string; created: StoredObject[] }> {
  const steps = rebuildTree(root, changes, get);
  let step = steps.next();
  while (!step.done) {
    await pause();
    step = steps.next();
  }
  return step.value;
}

function* rebuildTree(root: string, changes: Map<string, string | null>, get: NodeSource): Generator<void, { root: string; created: StoredObject[] }> {
  const created: StoredObject[] = [];
  // Group the changes by trie path, and index which digits follow each prefix, so that each
  // touched path is rebuilt bottom-up once and untouched ones are never visited.
  const byPath = new Map<string, [string, string | null][]>();
  const next = new Map<string, Set<string>>();
  for (const [id, hash] of changes) {
    const p = recordPath(id);
    let list = byPath.get(p);
    if (!list) {
      byPath.set(p, (list = []));
      for (let d = 0; d < DEPTH; d++) {
        const prefix = p.slice(0, d);
        let digits = next.get(prefix);
        if (!digits) next.set(prefix, (digits = new Set()));
        digits.add(p[d]);
      }
    }
    list.push([id, hash]);
  }
  const rebuild = (hash: string | undefined, depth: number, prefix: string): string | undefined => {
    if (depth === DEPTH) {
      const entries = { ...(hash ? (get(hash) as Extract<TreeNode, { kind: "leaf" }>).entries : {}) };
      for (const [id, h] of byPath.get(prefix) ?? []) {
        if (h) entries[id] = h;
        else delete entries[id];
      }
      if (Object.keys(entries).length === 0) return undefined;
      const obj = nodeObject({ kind: "leaf", entries });
      created.push(obj);
      return obj.hash;
    }
    const children = { ...(hash ? (get(hash) as Extract<TreeNode, { kind: "node" }>).children : {}) };
    for (const d of next.get(prefix) ?? []) {
      const child = rebuild(children[d], depth + 1, prefix + d);
      if (child) children[d] = child;
      else delete children[d];
    }
    return finishNode(children, depth);
  };
  const finishNode = (children: Record<string, string>, depth: number): string | undefined => {
    if (depth > 0 && Object.keys(children).length === 0) return undefined;
    const obj = nodeObject({ kind: "node", children });
    created.push(obj);
    return obj.hash;
  };
  let nextRoot = root;
  if (byPath.size > 0) {
    // The root's children one at a time, with a pause point between them.
    const children = { ...(get(root) as Extract<TreeNode, { kind: "node" }>).children };
    for (const d of next.get("") ?? []) {
      const child = rebuild(children[d], 1, d);
      if (child) children[d] = child;
      else delete children[d];
      yield;
    }
    nextRoot = finishNode(children, 0) ?? EMPTY_ROOT.hash;
  }
  // Keep only the nodes the final tree uses; the same content may have been built twice.
  const unique = new Map(created.map((o) => [o.hash, o]));
  return { root: nextRoot, created: [...unique.values()] };
}

/** Every (record id, record hash) of a tree. */
export function treeEntries(root: string, get: NodeSource): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (hash: string) => {
    const node = get(hash);
    if (node.kind === "leaf") for (const [id, h] of Object.entries(node.entries)) out.set(id, h);
    else for (const child of Object.values(node.children)) walk(child);
  };
  walk(root);
  return out;
}

/**
 * Records that differ between two trees: id → [hash in a or null, hash in b or null].
 * Subtrees with equal hashes are skipped without being read.
 */
export function diffTrees(a: string, b: string, get: NodeSource): Map<string, [string | null, string | null]> {
  const out = new Map<string, [string | null, string | null]>();
  const walk = (x: string | undefined, y: string | undefined) => {
    if (x === y) return;
    const nx = x ? get(x) : undefined, ny = y ? get(y) : undefined;
    if ((nx?.kind ?? ny?.kind) === "leaf") {
      const ex = nx?.kind === "leaf" ? nx.entries : {}, ey = ny?.kind === "leaf" ? ny.entries : {};
      for (const id of new Set([...Object.keys(ex), ...Object.keys(ey)]))
        if (ex[id] !== ey[id]) out.set(id, [ex[id] ?? null, ey[id] ?? null]);
      return;
    }
    const cx = nx?.kind === "node" ? nx.children : {}, cy = ny?.kind === "node" ? ny.children : {};
    for (const d of new Set([...Object.keys(cx), ...Object.keys(cy)])) walk(cx[d], cy[d]);
  };
  walk(a, b);
  return out;
}
