/**
 * Reader budgets: every file of the hostile corpus is refused by `decode` with a LimitError (or
 * its reader's error) naming what it broke, before anything large is allocated; and the decoded
 * scene check refuses non-finite or overflowing numbers, deep or cyclic hierarchies and too many
 * keys, without recursion.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOSTILE } from "../../../tests/fixtures/hostile/corpus";
import { decode, worldMatrices, type InterchangeNode, type InterchangeScene, type TransferFormat } from "./index";
import { checkDecodedScene, LIMITS } from "./limits";

const dir = mkdtempSync(path.join(tmpdir(), "kiln-hostile-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FORMAT: Record<string, TransferFormat> = { ".glb": "gltf", ".fbx": "fbx", ".obj": "obj", ".usda": "usd" };

describe("the hostile corpus, decoded in-process", () => {
  // The 360 MB OBJ is refused by its size before reading (import_asset); the readers never see it.
  it.each(HOSTILE.filter((h) => h.code === "ASSET_UNREADABLE").map((h) => [h.attack, h] as const))("%s", async (_, h) => {
    const file = path.join(dir, h.name);
    await h.write(file);
    const before = process.memoryUsage().rss;
    await expect(decode(FORMAT[path.extname(h.name)], new Map([[h.name, new Uint8Array(readFileSync(file))]]), h.name)).rejects.toThrow(h.message);
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * 2 ** 20);
  }, 300_000);
});

const node = (name: string, parent: number | null, extra: Partial<InterchangeNode> = {}): InterchangeNode => ({
  name, parent, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], ...extra,
});
const scene = (nodes: InterchangeNode[], extra: Partial<InterchangeScene> = {}): InterchangeScene => ({ nodes, meshes: [], materials: [], animations: [], ...extra });
const chain = (n: number) => scene(Array.from({ length: n }, (_, i) => node(`N${i}`, i === 0 ? null : i - 1)));

describe("checkDecodedScene", () => {
  it("accepts a hierarchy at the depth limit and refuses one level more, without recursion even at 100,000", () => {
    expect(() => checkDecodedScene(chain(LIMITS.hierarchyDepth))).not.toThrow();
    expect(() => checkDecodedScene(chain(LIMITS.hierarchyDepth + 1))).toThrow(`nests nodes ${LIMITS.hierarchyDepth + 1} deep`);
    expect(() => checkDecodedScene(chain(100_000))).toThrow("nests nodes 100000 deep");
    expect(worldMatrices(chain(100_000))).toHaveLength(100_000); // no stack overflow either
  });

  it("caps custom properties of nodes, meshes and materials (any format): nesting per object, JSON size per file, without recursion", () => {
    const nest = (n: number): unknown => {
      let v: unknown = 1;
      for (let k = 0; k < n; k++) v = [v];
      return v;
    };
    const mesh = (extras: Record<string, unknown>) => ({ name: "M", positions: new Float32Array(0), normals: new Float32Array(0), indices: new Uint32Array(0), extras });
    // The properties object is level 1, so a value may nest propertiesDepth levels.
    expect(() => checkDecodedScene(scene([node("N", null, { extras: { a: nest(LIMITS.propertiesDepth) } })]))).not.toThrow();
    expect(() => checkDecodedScene(scene([node("N", null, { extras: { a: nest(LIMITS.propertiesDepth + 1) } })]))).toThrow(`custom properties of node "N" nest deeper than ${LIMITS.propertiesDepth} levels`);
    expect(() => checkDecodedScene(scene([], { meshes: [mesh({ a: nest(1_000_000) })] }))).toThrow(`custom properties of mesh "M" nest deeper than ${LIMITS.propertiesDepth} levels`);
    const half = "x".repeat(LIMITS.propertiesChars / 2);
    expect(() => checkDecodedScene(scene([node("N", null, { extras: { s: half } })]))).not.toThrow();
    const material = { name: "W", color: [1, 1, 1, 1] as [number, number, number, number], metallic: 0, roughness: 1, extras: { s: half } };
    expect(() => checkDecodedScene(scene([node("N", null, { extras: { s: half } })], { materials: [material] }))).toThrow(`the file's custom properties take more than ${LIMITS.propertiesChars} characters of JSON`);
  });

  it("refuses parent cycles", () => {
    expect(() => checkDecodedScene(scene([node("A", 1), node("B", 0)]))).toThrow("parent cycle");
  });

  it("refuses non-finite and out-of-range numbers, naming the node, mesh, light or material", () => {
    expect(() => checkDecodedScene(scene([node("Far", null, { translation: [2e9, 0, 0] })]))).toThrow('node "Far" has a translation that is not a finite number within ±1000000000 m');
    expect(() => checkDecodedScene(scene([node("Lamp", null, { light: { type: "point", color: [1, 1, 1], intensity: NaN } })]))).toThrow('light of node "Lamp"');
    expect(() => checkDecodedScene(scene([], { materials: [{ name: "Bad", color: [NaN, 0, 0, 1], metallic: 0, roughness: 1 }] }))).toThrow('material "Bad"');
    const mesh = { name: "M", positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), normals: new Float32Array(9), indices: new Uint32Array([0, 1, 5]) };
    expect(() => checkDecodedScene(scene([], { meshes: [mesh] }))).toThrow('mesh "M" refers to vertex 5 of 3');
  });

  it("refuses world placements that multiply up beyond the cap (finite locally, overflowing when composed)", () => {
    const s = scene([node("A", null, { scale: [1e6, 1e6, 1e6] }), node("B", 0, { scale: [1e6, 1e6, 1e6] })]);
    expect(() => checkDecodedScene(s)).toThrow('node "B" is placed beyond ±1000000000');
  });

  it("counts a mesh once per node that places it", () => {
    const tri = { name: "T", positions: new Float32Array(9), normals: new Float32Array(9), indices: new Uint32Array(3 * 1_000_000).fill(0) };
    const nodes = Array.from({ length: 11 }, (_, i) => node(`N${i}`, null, { mesh: 0 }));
    expect(() => checkDecodedScene(scene(nodes, { meshes: [tri] }))).toThrow(`places more than ${LIMITS.triangles} triangles`);
  });

  it("refuses more keyframes per node than set_keyframe allows", () => {
    const times = Array.from({ length: LIMITS.keyframes + 1 }, (_, i) => i);
    expect(() => checkDecodedScene(scene([node("A", null)], { animations: [{ node: 0, times, translations: times.map(() => [0, 0, 0]) }] }))).toThrow(`at most ${LIMITS.keyframes}`);
  });
});
