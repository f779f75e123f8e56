/**
 * Content-addressed snapshots of the working state, as a fixed-depth hash trie (like git trees).
 *
 * A record's place is the first DEPTH hex digits of sha256(record id); internal nodes map a hex
 * digit to a child hash, and leaves ("packs") hold their records inline, so a 100,000-record
 * snapshot is ~4,400 stored objects, not 100,000. A version is one root hash. A pack's stored text
 * is the canonical JSON of `{kind: "pack", records: {id: record}}`, put together from the
 * records' own canonical texts (cached per record object), so nothing is serialised twice.
 * Changing one record rewrites one pack (~25 records at 100,000) and DEPTH internal nodes, so
 * storage grows with what changed, not with the scene; equal subtrees are shared between versions.
 *
 * Snapshots written before packs existed have "leaf" nodes mapping ids to record hashes, with
 * each record stored as its own object. They stay readable; a save rewrites a touched leaf as a pack.
 */
import { hash } from "node:crypto";
import { canonicalJson } from "../scene/canonical-json";
import type { SceneEntity } from "../scene/types";

export const DEPTH = 3;

export type TreeNode =
  | { kind: "node"; children: Record<string, string> }
  /** Legacy leaf: record id → hash of the record, stored as its own object. */
  | { kind: "leaf"; entries: Record<string, string> }
  /**
   * Leaf: record id → the record itself (shared with the working state; records are immutable).
   * A Map, not an object: every pack has different keys, and objects with unique keys each make
   * the engine build new hidden classes (measured: most of a big save's CPU time and garbage).
   */
  | { kind: "pack"; records: Map<string, SceneEntity> };

/**
 * What a leaf says about one record: the record (packs) or, in legacy leaves, its content hash
 * (the record is a stored object of its own).
 */
export type RecordRef = SceneEntity | string;
export const isHashRef = (ref: RecordRef): ref is string => typeof ref === "string";

/** Whether two refs denote the same record content (a record and a hash compare by hashing the record). */
export function sameRecord(a: RecordRef | undefined, b: RecordRef | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const ha = isHashRef(a), hb = isHashRef(b);
  if (ha && hb) return false;
  if (!ha && !hb) return recordText(a) === recordText(b);
  return ha ? contentHash(recordText(b as SceneEntity)) === a : contentHash(recordText(a)) === b;
}

const NO_REFS: ReadonlyMap<string, RecordRef> = new Map();

/** The records of a leaf of either kind, as refs. */
export function leafRefs(node: TreeNode): ReadonlyMap<string, RecordRef> {
  return node.kind === "pack" ? node.records : node.kind === "leaf" ? new Map(Object.entries(node.entries)) : NO_REFS;
}

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

/**
 * Canonical texts of records, by record object. Records are immutable (the scene core replaces
 * a record rather than changing it), so a record serialised once never needs it again: the next
 * snapshot serialises only what changed since the last one.
 */
const texts = new WeakMap<SceneEntity, string>();

/** A record's canonical text (cached). */
export function recordText(record: SceneEntity): string {
  let text = texts.get(record);
  if (text === undefined) texts.set(record, (text = canonicalJson(record)));
  return text;
}

/** canonicalJson of a pack node, from its records' cached texts. */
function packText(records: Map<string, SceneEntity>): string {
  const ids = [...records.keys()].sort();
  const parts = new Array<string>(ids.length);
  for (let i = 0; i < ids.length; i++) parts[i] = `${JSON.stringify(ids[i])}:${recordText(records.get(ids[i])!)}`;
  return `{"kind":"pack","records":{${parts.join(",")}}}`;
}

export function nodeObject(node: TreeNode): StoredObject {
  const data = node.kind === "pack" ? packText(node.records) : canonicalJson(node);
  const children = node.kind === "node" ? Object.values(node.children) : node.kind === "leaf" ? Object.values(node.entries) : [];
  return { hash: contentHash(data), data, children, node };
}

export const EMPTY_ROOT = nodeObject({ kind: "node", children: {} });

/** Parses a stored node. */
export function parseNode(data: string): TreeNode {
  const node = JSON.parse(data) as TreeNode | { kind: "pack"; records: Record<string, SceneEntity> };
  return node.kind === "pack" && !(node.records instanceof Map) ? { kind: "pack", records: new Map(Object.entries(node.records)) } : (node as TreeNode);
}

/** Reads nodes by hash (from memory or the database). */
export type NodeSource = (hash: string) => TreeNode;

/**
 * A record of the working state, by id: needed when a legacy leaf is rewritten as a pack (its
 * unchanged records are only hashes there).
 */
export type RecordOf = (id: string) => SceneEntity;

const noLegacy: RecordOf = () => {
  throw new Error("A legacy snapshot leaf was rewritten without the working state's records.");
};

/**
 * Applies record changes (id → new record, or null for removed) to the tree at `root`.
 * Returns the new root and the nodes it created; untouched subtrees are reused by hash.
 */
/**
 * What updateTree made: the new root, the nodes it created, and how many records differ from
 * the tree it started from (diffTrees(root, new root).size, found while rebuilding).
 */
export type TreeUpdate = { root: string; created: StoredObject[]; changed: number };

export function updateTree(root: string, changes: Map<string, SceneEntity | null>, get: NodeSource, recordOf: RecordOf = noLegacy, onPack?: (pack: StoredObject) => void): TreeUpdate {
  const steps = rebuildTree(root, changes, get, recordOf, onPack);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * updateTree for big change sets: offers a pause after each subtree of the second level (1/256
 * of the work) and of the first, so that other clients are served meanwhile. `get` must stay valid across the pauses.
 */
export async function updateTreeInSlices(root: string, changes: Map<string, SceneEntity | null>, get: NodeSource, pause: () => Promise<void>, recordOf: RecordOf = noLegacy, onPack?: (pack: StoredObject) => void): Promise<TreeUpdate> {
  const steps = rebuildTree(root, changes, get, recordOf, onPack);
  let step = steps.next();
  while (!step.done) {
    await pause();
    step = steps.next();
  }
  return step.value;
}

/** `onPack` hears of each pack as soon as it is built (a big save starts writing them meanwhile). */
function* rebuildTree(root: string, changes: Map<string, SceneEntity | null>, get: NodeSource, recordOf: RecordOf, onPack?: (pack: StoredObject) => void): Generator<void, TreeUpdate> {
  const created: StoredObject[] = [];
  let changed = 0;
  // Group the changes by trie path, and index which digits follow each prefix, so that each
  // touched path is rebuilt bottom-up once and untouched ones are never visited.
  const byPath = new Map<string, [string, SceneEntity | null][]>();
  const next = new Map<string, Set<string>>();
  let n = 0;
  for (const [id, hash] of changes) {
    // Placing a record hashes its id: at 100,000 records that is worth pausing for too.
    if ((++n & 2047) === 0) yield;
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
  // A generator so that a big rebuild can pause after each second-level subtree (1/256 of the work).
  function* rebuild(hash: string | undefined, depth: number, prefix: string): Generator<void, string | undefined> {
    if (depth === DEPTH) {
      const old = hash ? get(hash) : undefined;
      const own = byPath.get(prefix) ?? [];
      const before = old ? leafRefs(old) : NO_REFS;
      for (const [id, record] of own) {
        const was = before.get(id);
        if (record ? !sameRecord(was, record) : was !== undefined) changed++;
      }
      let records: Map<string, SceneEntity>;
      if (old?.kind === "leaf") {
        // A legacy leaf becomes a pack: its unchanged records come from the working state.
        const changed = new Set(own.map(([id]) => id));
        records = new Map();
        for (const id of Object.keys(old.entries)) if (!changed.has(id)) records.set(id, recordOf(id));
      } else records = new Map(old?.kind === "pack" ? old.records : undefined);
      for (const [id, record] of own) {
        if (record) records.set(id, record);
        else records.delete(id);
      }
      if (records.size === 0) return undefined;
      const obj = nodeObject({ kind: "pack", records });
      created.push(obj);
      onPack?.(obj);
      return obj.hash;
    }
    const children = { ...(hash ? (get(hash) as Extract<TreeNode, { kind: "node" }>).children : {}) };
    for (const d of next.get(prefix) ?? []) {
      const child = yield* rebuild(children[d], depth + 1, prefix + d);
      if (depth === 1) yield;
      if (child) children[d] = child;
      else delete children[d];
    }
    return finishNode(children, depth);
  }
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
      const child = yield* rebuild(children[d], 1, d);
      if (child) children[d] = child;
      else delete children[d];
      yield;
    }
    nextRoot = finishNode(children, 0) ?? EMPTY_ROOT.hash;
  }
  // Keep only the nodes the final tree uses; the same content may have been built twice.
  const unique = new Map(created.map((o) => [o.hash, o]));
  return { root: nextRoot, created: [...unique.values()], changed };
}

/** Every (record id, record ref) of a tree. */
export function treeEntries(root: string, get: NodeSource): Map<string, RecordRef> {
  const out = new Map<string, RecordRef>();
  const walk = (hash: string) => {
    const node = get(hash);
    if (node.kind === "node") for (const child of Object.values(node.children)) walk(child);
    else for (const [id, ref] of leafRefs(node)) out.set(id, ref);
  };
  walk(root);
  return out;
}

/**
 * Records that differ between two trees: id → [ref in a or null, ref in b or null].
 * Subtrees with equal hashes are skipped without being read.
 */
export function diffTrees(a: string, b: string, get: NodeSource): Map<string, [RecordRef | null, RecordRef | null]> {
  const steps = diffSteps(a, b, get);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * diffTrees for big trees: offers a pause after each pair of leaves compared (a first save
 * compares 100,000 records, ~50 ms in one go). `get` must stay valid across the pauses.
 */
export async function diffTreesInSlices(a: string, b: string, get: NodeSource, pause: () => Promise<void>): Promise<Map<string, [RecordRef | null, RecordRef | null]>> {
  const steps = diffSteps(a, b, get);
  let step = steps.next();
  while (!step.done) {
    await pause();
    step = steps.next();
  }
  return step.value;
}

function* diffSteps(a: string, b: string, get: NodeSource): Generator<void, Map<string, [RecordRef | null, RecordRef | null]>> {
  const out = new Map<string, [RecordRef | null, RecordRef | null]>();
  function* walk(x: string | undefined, y: string | undefined): Generator<void, void> {
    if (x === y) return;
    const nx = x ? get(x) : undefined, ny = y ? get(y) : undefined;
    if ((nx?.kind ?? ny?.kind) !== "node") {
      const ex = nx ? leafRefs(nx) : NO_REFS, ey = ny ? leafRefs(ny) : NO_REFS;
      for (const [id, a] of ex) {
        const b = ey.get(id);
        if (!sameRecord(a, b)) out.set(id, [a, b ?? null]);
      }
      for (const [id, b] of ey) if (!ex.has(id)) out.set(id, [null, b]);
      yield;
      return;
    }
    const cx = nx?.kind === "node" ? nx.children : {}, cy = ny?.kind === "node" ? ny.children : {};
    for (const d of new Set([...Object.keys(cx), ...Object.keys(cy)])) yield* walk(cx[d], cy[d]);
  }
  yield* walk(a, b);
  return out;
}
