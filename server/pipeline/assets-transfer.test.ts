// Invariant: each real Blender asset (tests/fixtures/assets), imported into Blender's scene and
// transferred Blender → Unity → Blender through glTF files, keeps its UV sets and values (1e-6),
// vertex colours (1/255), material slots, textures (same bytes), joints and weights (1e-6),
// inverse bind matrices (back in glTF's axes, 1e-5), morph target names and weights, and extras.
import { describe, expect, it } from "vitest";
import { applyOperation } from "../scene/apply";
import { applyChanges } from "../scene/changes";
import { initialState } from "../scene/state";
import type { AppId, SceneEntity } from "../scene/types";
import { findAsset } from "./assets";
import { exportAsset, exportFound, exportInputs } from "./export-scene";
import { decode, encode, type InterchangeScene } from "./formats";
import { ASSETS, readAsset } from "../../tests/fixtures/assets/read";
import { planImport } from "./import-scene";

type State = Map<string, SceneEntity>;

function importInto(state: State, app: AppId, scene: InterchangeScene, name: string) {
  const { plan, warnings } = planImport(app, scene, name);
  const out = applyOperation(state, { tool: "import_asset", app, params: { plan } });
  applyChanges(state, out.changes);
  return { result: out.result as { roots: string[] }, warnings };
}

async function viaGltf(scene: InterchangeScene): Promise<InterchangeScene> {
  const enc = await encode("gltf", scene, "asset");
  return (await decode("gltf", new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name)).scene;
}

const close = (a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined, eps: number) => {
  expect(a?.length, "length").toBe(b?.length);
  let worst = 0;
  for (let i = 0; i < (a?.length ?? 0); i++) worst = Math.max(worst, Math.abs(a![i] - b![i]));
  expect(worst).toBeLessThanOrEqual(eps);
};

/** Meshes by the name of the node using them; skins by joint names. */
function byNode(scene: InterchangeScene) {
  return new Map(scene.nodes.flatMap((n) => (n.mesh === undefined ? [] : [[n.name, { node: n, mesh: scene.meshes[n.mesh] }] as const])));
}

describe("real assets through Kiln's scenes (Blender → Unity → Blender, glTF)", () => {
  it.each(ASSETS)("%s keeps its asset data", async (name) => {
    const state = new Map(initialState()) as State;
    const src = (await readAsset(name)).scene;
    const root = importInto(state, "blender", src, name).result.roots[0];
    const toUnity = exportAsset(state, "blender", root, { applyModifiers: true, includeAnimations: true });
    const unityRoot = importInto(state, "unity", await viaGltf(toUnity.scene), root).result.roots[0];
    const back = exportAsset(state, "unity", unityRoot, { applyModifiers: true, includeAnimations: true });
    const dst = await viaGltf(back.scene);

    const a = byNode(src), b = byNode(dst);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [node, { node: sn, mesh: sm }] of a) {
      const { node: dn, mesh: dm } = b.get(node)!;
      expect(dm.uvs?.length ?? 0).toBe(sm.uvs?.length ?? 0);
      sm.uvs?.forEach((uv, k) => close(dm.uvs![k], uv, 1e-6));
      if (sm.colors) close(dm.colors, sm.colors, 1 / 255);
      if (sm.weights) (close(dm.weights, sm.weights, 1e-6), close(dm.joints, sm.joints, 0));
      expect(dm.groups).toEqual(sm.groups);
      const matNames = (n: typeof sn, s: InterchangeScene) => (n.materials ?? [n.material]).map((m) => (m === undefined || m === null ? null : s.materials[m].name));
      expect(matNames(dn, dst)).toEqual(matNames(sn, src));
      expect(dm.morphTargets?.map((t) => t.name)).toEqual(sm.morphTargets?.map((t) => t.name));
      sm.morphTargets?.forEach((t, k) => close(dm.morphTargets![k].positions, t.positions, 1e-6));
      expect(dm.morphWeights).toEqual(sm.morphWeights);
      if (sn.skin !== undefined) {
        const ss = src.skins![sn.skin], ds = dst.skins![dn.skin!];
        expect(ds.joints.map((j) => dst.nodes[j].name)).toEqual(ss.joints.map((j) => src.nodes[j].name));
        close(ds.inverseBindMatrices, ss.inverseBindMatrices, 1e-5);
      }
    }
    const textures = (s: InterchangeScene) => s.materials.flatMap((m) => Object.entries(m.textures ?? {}).map(([slot, t]) => [m.name, slot, t.uv, t.offset, t.scale, t.rotation, Buffer.from(s.images![t.image].bytes).toString("base64")]));
    expect(textures(dst).sort()).toEqual(textures(src).sort());
    const weightKeys = (s: InterchangeScene) => s.animations.filter((x) => x.weights).map((x) => [s.nodes[x.node].name, x.times, x.weights]);
    expect(weightKeys(dst)).toEqual(weightKeys(src));
  });
});

// A transfer exports in a worker from exportInputs' records only: that must be the same export.
describe("exportInputs", () => {
  it.each(ASSETS)("%s exports the same from its inputs alone, under a parent", async (name) => {
    const state = new Map(initialState()) as State;
    const root = importInto(state, "blender", (await readAsset(name)).scene, name).result.roots[0];
    for (const params of [{ name: "Holder", type: "Empty", position: { x: 2 }, rotation: { z: 30 } }, { name: "Other", type: "Cube" }]) {
      applyChanges(state, applyOperation(state, { tool: "create_gameobject", app: "blender", params }).changes);
    }
    const top = findAsset(state, "blender", root).root;
    state.set(top.id, { ...top, parent: "Holder" }); // no tool re-parents; the record says it all
    const asset = findAsset(state, "blender", root);
    const inputs = exportInputs(state, asset);
    expect(inputs.records.size).toBeLessThan(state.size);
    expect(inputs.asset.sceneObjects.map((o) => o.name)).toEqual(["Holder", ...asset.objects.map((o) => o.name)]);
    const options = { applyModifiers: true, includeAnimations: true };
    expect(structuredClone(exportFound(inputs.records, inputs.asset, options))).toEqual(structuredClone(exportFound(state, asset, options)));
  });
});
