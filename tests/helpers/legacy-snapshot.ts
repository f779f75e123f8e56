/**
 * Snapshot trees as Kiln wrote them before packs (docs/version-control.md): leaves mapping record
 * ids to record hashes, each record stored as its own object. Byte for byte what the earlier
 * server/versioning/tree.ts stored (canonical JSON is pinned by its own test), so tests can
 * build a project "saved by the earlier version" and check that it still reads and restores.
 */
import { canonicalJson } from "../../server/scene/canonical-json";
import type { SceneEntity } from "../../server/scene/types";
import { DEPTH, contentHash, nodeObject, recordPath, type StoredObject } from "../../server/versioning/tree";

export function legacyTree(records: Map<string, SceneEntity>): { root: string; created: StoredObject[] } {
  const created: StoredObject[] = [];
  const byPath = new Map<string, Record<string, string>>();
  for (const [id, record] of records) {
    const data = canonicalJson(record);
    const hash = contentHash(data);
    created.push({ hash, data, children: [] });
    const p = recordPath(id);
    byPath.set(p, { ...byPath.get(p), [id]: hash });
  }
  const build = (prefix: string): string | undefined => {
    if (prefix.length === DEPTH) {
      const entries = byPath.get(prefix);
      if (!entries) return undefined;
      const leaf = nodeObject({ kind: "leaf", entries });
      created.push(leaf);
      return leaf.hash;
    }
    const children: Record<string, string> = {};
    for (const d of "0123456789abcdef") {
      const child = build(prefix + d);
      if (child) children[d] = child;
    }
    if (prefix && Object.keys(children).length === 0) return undefined;
    const node = nodeObject({ kind: "node", children });
    created.push(node);
    return node.hash;
  };
  return { root: build("")!, created };
}
