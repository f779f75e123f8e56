// Invariant: canonicalJson's fast path (JSON.stringify of a sorted-keys copy) writes exactly
// the text of the reference definition, for any JSON-like value: stored snapshots are addressed
// by the hash of this text, so one differing byte would orphan every version.
import { describe, expect, it } from "vitest";
import { canonicalJson, sortedKeysJson } from "./canonical-json";
import { applyOperation } from "./apply";
import { initialState } from "./state";
import { rng } from "../../tests/helpers/random";

const KEYS = ["a", "b", "B", "10", "2", "0", "-1", "é", "\ud800", "__proto__x", "z z", "", "id", "x", "y", "kind", "entries", "aa", "__proto__", "Z", "1a"];

function value(r: () => number, depth: number): unknown {
  const pick = Math.floor(r() * (depth > 4 ? 6 : 9));
  switch (pick) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return [0, -0, 1.5, -1e308, 1e-7, NaN, Infinity, 2 ** 53][Math.floor(r() * 8)];
    case 3: return ["", "plain", "quo\"te", "line\nbreak", "\u2028", "\ud800", "émoji 🎉", "\\"][Math.floor(r() * 8)];
    case 4: return undefined;
    case 5: return Math.round(r() * 1000) / 10;
    case 6: case 7: {
      const o: Record<string, unknown> = {};
      const n = Math.floor(r() * 6);
      for (let i = 0; i < n; i++) o[KEYS[Math.floor(r() * KEYS.length)]] = value(r, depth + 1);
      return o;
    }
    default: return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
  }
}

describe("canonicalJson", () => {
  it("writes the reference text for 20,000 random JSON-like values", () => {
    const r = rng(12345);
    for (let i = 0; i < 20_000; i++) {
      const v = value(r, 0);
      expect(canonicalJson(v)).toBe(sortedKeysJson(v));
    }
  });

  it("writes the reference text for real scene records", () => {
    const state = initialState();
    for (const type of ["Cube", "Sphere", "Empty", "Plane", "Cylinder"]) {
      const { changes } = applyOperation(state, { tool: "create_gameobject", app: "blender", params: { name: `N ${type}`, type } });
      for (const c of changes) expect(canonicalJson(c.after)).toBe(sortedKeysJson(c.after));
    }
    for (const record of state.values()) expect(canonicalJson(record)).toBe(sortedKeysJson(record));
  });

  it("falls back to the reference path for functions, toJSON and very deep values", () => {
    const deep: unknown[] = [];
    let at = deep;
    for (let i = 0; i < 200; i++) { const next: unknown[] = [{ k: i }]; at.push(next); at = next; }
    for (const v of [{ f: () => 1, a: 1 }, [() => 1, Symbol("s")], { d: new Date(0) }, deep]) expect(canonicalJson(v)).toBe(sortedKeysJson(v));
  });
});
