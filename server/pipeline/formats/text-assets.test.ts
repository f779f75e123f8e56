// Invariant: the real Blender assets (tests/fixtures/assets) written as OBJ + MTL or USDA and read
// back keep, corner by corner, their UV values (1e-6; OBJ the first set), vertex colours (1/255;
// OBJ RGB), material slots (groups and each slot's material), and textures (same image bytes,
// UV set, offset and scale), and every part the format cannot hold is named in a warning. Images
// are written beside the file and read only from beside it. assimp reads Kiln's OBJ.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decode, encode, type InterchangeScene, type TransferFormat } from ".";
import { ASSETS, readAsset } from "../../../tests/fixtures/assets/read";
import { assimpInfo } from "../../../tests/fixtures/formats/assimp";
import { USDLoader } from "three/examples/jsm/loaders/USDLoader.js";
import type { Mesh, MeshStandardMaterial } from "three";

const dir = mkdtempSync(join(tmpdir(), "kiln-text-assets-"));

/** Each placed mesh by its node's name: its mesh, and its slots' material names per group. */
function placed(scene: InterchangeScene) {
  return new Map(scene.nodes.flatMap((n) => {
    if (n.mesh === undefined) return [];
    const mesh = scene.meshes[n.mesh];
    const slots = (mesh.groups ? n.materials ?? [] : [n.material]).map((m) => (m === undefined || m === null ? null : scene.materials[m].name));
    return [[n.name, { mesh, slots }] as const];
  }));
}

/** `a[indices[c]]` against `b[indices'[c]]` for every triangle corner c, `width` numbers each. */
function expectCornersClose(a: ArrayLike<number>, ia: Uint32Array, b: ArrayLike<number>, ib: Uint32Array, width: number, eps: number, what: string) {
  expect(ia.length, what).toBe(ib.length);
  for (let c = 0; c < ia.length; c++)
    for (let k = 0; k < width; k++) {
      const x = a[ia[c] * width + k], y = b[ib[c] * width + k];
      if (!(Math.abs(x - y) <= eps)) expect([what, c, k, x]).toEqual([what, c, k, y]);
    }
}

/** A material's textures with their images as base64 bytes instead of indices. */
const textures = (scene: InterchangeScene, name: string) => {
  const m = scene.materials.find((x) => x.name === name);
  return Object.fromEntries(Object.entries(m?.textures ?? {}).map(([slot, t]) => [slot, { ...t, image: Buffer.from(scene.images![t.image].bytes).toString("base64") }]));
};

/** No fixture has custom properties of its own (the glTF reader keeps Blender's targetNames as morph target names): each object gets some. */
function giveProperties(scene: InterchangeScene) {
  scene.nodes.forEach((n, i) => (n.extras = { node: n.name, index: i, flags: [i % 2 === 0], mixed: [n.name, i, null] }));
  scene.meshes.forEach((m, i) => (m.extras = { mesh: m.name, lod: { level: i, ratios: [1, 0.5] } }));
  scene.materials.forEach((m) => (m.extras = { material: m.name, tags: ["a", 'b "q"'] }));
}

const roundTrip = async (format: TransferFormat, src: InterchangeScene, name: string) => {
  const enc = await encode(format, src, name);
  const dec = await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name);
  return { enc, dec };
};

describe.each(["obj", "usd"] as const)("real Blender assets through Kiln's %s codec", (format) => {
  it.each(ASSETS)("%s keeps UVs, colours, slots and textures", async (name) => {
    const src = (await readAsset(name)).scene;
    if (format === "usd") giveProperties(src);
    const { enc, dec } = await roundTrip(format, src, name);
    const before = placed(src), after = placed(dec.scene);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [node, { mesh, slots }] of before) {
      const got = after.get(node)!;
      // OBJ holds one UV set; USD both.
      const sets = format === "obj" ? Math.min(1, mesh.uvs?.length ?? 0) : mesh.uvs?.length ?? 0;
      expect(got.mesh.uvs?.length ?? 0, `${node} UV sets`).toBe(sets);
      for (let s = 0; s < sets; s++) expectCornersClose(got.mesh.uvs![s], got.mesh.indices, mesh.uvs![s], mesh.indices, 2, 1e-6, `${node} uv${s}`);
      expect(!!got.mesh.colors, `${node} colours`).toBe(!!mesh.colors);
      // USDA carries custom properties (customData.userProperties).
      if (format === "usd") expect(got.mesh.extras, `${node} mesh properties`).toEqual(mesh.extras);
      if (mesh.colors) {
        const rgba = format === "obj" ? mesh.colors.map((v, k) => (k % 4 === 3 ? 1 : v)) : mesh.colors;
        expectCornersClose(got.mesh.colors!, got.mesh.indices, rgba, mesh.indices, 4, 1 / 255, `${node} colours`);
      }
      // OBJ cannot unset a material: an empty slot after another takes that one, and empty slots
      // before the first material merge, each with a warning.
      const emptySlots = format === "obj" && slots.includes(null) ? enc.warnings.filter((w) => w.startsWith(`obj: empty material slots of "${node}"`)) : [];
      if (emptySlots.length) expect(new Set(got.slots.filter((s) => s !== null))).toEqual(new Set(slots.filter((s) => s !== null)));
      else {
        expect(got.mesh.groups, `${node} groups`).toEqual(mesh.groups);
        expect(got.slots, `${node} slots`).toEqual(slots);
      }
    }
    for (const m of src.materials) {
      const want = textures(src, m.name);
      if (format === "obj") {
        if (want.occlusion) expect(enc.warnings).toContain(`obj: occlusion texture of material "${m.name}" dropped (MTL has no occlusion map)`);
        delete want.occlusion;
        for (const t of Object.values(want)) t.uv = 0;
      }
      for (const [slot, t] of Object.entries(want)) {
        if (t.rotation) expect(enc.warnings).toContain(`${format}: ${slot} texture rotation of material "${m.name}" dropped${format === "obj" ? " (MTL has no rotation option)" : ""}`);
        delete t.rotation;
      }
      const got = textures(dec.scene, m.name);
      expect(Object.keys(got).sort(), `material ${m.name}`).toEqual(Object.keys(want).sort());
      for (const [slot, t] of Object.entries(want)) {
        const g = got[slot];
        expect([g.image, g.uv], `${m.name} ${slot}`).toEqual([t.image, t.uv]);
        for (const k of ["offset", "scale"] as const) expectCornersClose(g[k] ?? (k === "scale" ? [1, 1] : [0, 0]), new Uint32Array([0]), t[k] ?? (k === "scale" ? [1, 1] : [0, 0]), new Uint32Array([0]), 2, 1e-6, `${m.name} ${slot} ${k}`);
      }
      const back = dec.scene.materials.find((x) => x.name === m.name)!;
      expect(back.emissive, `${m.name} emissive`).toEqual(m.emissive);
      // USDA also keeps the double-sided flag and alpha cutoff (opacityThreshold); OBJ warns.
      if (format === "usd") expect([back.doubleSided, back.alphaMode === "MASK" ? back.alphaCutoff : undefined]).toEqual([m.doubleSided, m.alphaMode === "MASK" ? m.alphaCutoff : undefined]);
      else if (m.doubleSided) expect(enc.warnings).toContain(`obj: double-sided flag of material "${m.name}" dropped`);
      if (format === "usd") expect(back.extras, `${m.name} properties`).toEqual(m.extras);
    }
    const nodeProperties = (s: InterchangeScene) => s.nodes.map((n) => [n.name, n.extras]).sort();
    if (format === "usd") expect(nodeProperties(dec.scene)).toEqual(nodeProperties(src));
    if (format === "obj" && src.meshes.some((m) => (m.uvs?.length ?? 0) > 1)) expect(enc.warnings.some((w) => /^obj: second UV set of mesh ".*" dropped \(OBJ has one\)$/.test(w))).toBe(true);
    // Images sit beside the main file under plain names.
    for (const f of enc.files.slice(format === "obj" ? 2 : 1)) expect(f.name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*\.(png|jpg)$/);
    expect(dec.warnings).toEqual([]);
    if (format === "obj") {
      const folder = join(dir, name);
      mkdirSync(folder, { recursive: true });
      for (const f of enc.files) writeFileSync(join(folder, f.name), f.bytes);
      const info = assimpInfo(join(folder, enc.files[0].name));
      if (info) expect(info.exitCode, info.output).toBe(0);
    }
  });
});

describe("three's USDLoader, an independent reader, on Kiln's USDA", () => {
  it("finds the UV sets, material subsets and texture maps", async () => {
    // three loads texture images through the DOM; an image element that never loads is enough here.
    const g = globalThis as { document?: unknown };
    const had = g.document;
    g.document ??= { createElementNS: () => ({ addEventListener() {}, removeEventListener() {}, style: {} }) };
    try {
      const meshes = async (name: string) => {
        const enc = await encode("usd", (await readAsset(name)).scene, name);
        const out: Mesh[] = [];
        new USDLoader().parse(new TextDecoder().decode(enc.files[0].bytes)).traverse((o) => (o as Mesh).isMesh && out.push(o as Mesh));
        return out;
      };
      const [twoUv] = await meshes("12_orm_two_uvmaps");
      expect(Object.keys(twoUv.geometry.attributes).sort()).toEqual(["normal", "position", "uv", "uv1"]);
      expect(!!(twoUv.material as MeshStandardMaterial).aoMap).toBe(true);
      const slots = await meshes("22_material_slot_not_merge");
      expect(slots.map((m) => m.geometry.groups.length)).toEqual(slots.map(() => 6));
      const [grid] = await meshes("09_texture_transform");
      const mat = grid.material as MeshStandardMaterial;
      expect([!!mat.map, !!mat.normalMap, !!mat.emissiveMap, !!mat.roughnessMap, !!mat.metalnessMap]).toEqual([true, true, true, true, true]);
    } finally {
      g.document = had;
    }
  });
});

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const bytes = (s: string) => new TextEncoder().encode(s);
const TRI = ["mtllib a.mtl", "o T", "v 0 0 0", "v 1 0 0", "v 0 1 0", "vt 0 0", "vt 1 0", "vt 0 1", "vn 0 0 1", "usemtl M", "f 1/1/1 2/2/1 3/3/1"].join("\n");

describe("side images", () => {
  const escapes = ["../secret.png", "../../etc/passwd", "/etc/passwd", "C:\\secret.png", "sub/../../secret.png", "file:///etc/passwd"];

  it.each(escapes)("OBJ: map_Kd %s is not read, even when the caller offers it", async (ref) => {
    const files = new Map([["a.obj", bytes(TRI)], ["a.mtl", bytes(`newmtl M\nmap_Kd ${ref}\n`)], [ref, PNG]]);
    const dec = await decode("obj", files, "a.obj");
    expect(dec.scene.images ?? []).toEqual([]);
    expect(dec.scene.materials[0].textures).toBeUndefined();
    expect(dec.warnings).toContain(`obj: material "M": image "${ref}" is not beside the file; texture dropped`);
  });

  it.each(escapes)("USDA: inputs:file @%s@ is not read", async (ref) => {
    const enc = await encode("usd", (await readAsset("09_texture_transform")).scene, "t");
    const usda = new TextDecoder().decode(enc.files[0].bytes).replace(/@\.\/[^@]+@/g, `@${ref}@`);
    const dec = await decode("usd", new Map([["t.usda", bytes(usda)], [ref, PNG]]), "t.usda");
    expect(dec.scene.images ?? []).toEqual([]);
    expect(dec.warnings).toContain(`usd: material "Material": image "${ref}" is not beside the file; texture dropped`);
  });

  it("reads images in a subfolder, and refuses one that is not a PNG or JPEG", async () => {
    const ok = await decode("obj", new Map([["a.obj", bytes(TRI)], ["a.mtl", bytes("newmtl M\nmap_Kd -s 2 2 1 tex/a b.png\n")], ["tex/a b.png", PNG]]), "a.obj");
    expect(ok.scene.images?.map((i) => [i.name, i.mimeType, Array.from(i.bytes)])).toEqual([["a b", "image/png", Array.from(PNG)]]);
    expect(ok.scene.materials[0].textures?.baseColor).toEqual({ image: 0, uv: 0, scale: [2, 2], offset: [0, -1] });
    const bad = await decode("obj", new Map([["a.obj", bytes(TRI)], ["a.mtl", bytes("newmtl M\nmap_Kd a.png\n")], ["a.png", bytes("#!/bin/sh")]]), "a.obj");
    expect(bad.scene.images ?? []).toEqual([]);
    expect(bad.warnings).toContain('obj: material "M": image "a.png" is not a PNG or JPEG; texture dropped');
  });
});

describe("OBJ asset data details", () => {
  it("writes sRGB vertex colours, V-up UVs and a usemtl per slot, and reads them back", async () => {
    const scene: InterchangeScene = {
      nodes: [{ name: "Q", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: 0, materials: [0, 0] }],
      meshes: [{
        name: "Q", positions: new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]), normals: new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]),
        indices: new Uint32Array([0, 1, 2, 0, 2, 3]), uvs: [new Float32Array([0, 1, 1, 1, 1, 0, 0, 0.25])],
        colors: new Float32Array([0.214041, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0.5, 0.5, 0.5, 1]), groups: [{ start: 0, count: 3 }, { start: 3, count: 3 }],
      }],
      materials: [{ name: "M", color: [1, 1, 1, 1], metallic: 0, roughness: 0.5 }],
      animations: [],
    };
    const { enc, dec } = await roundTrip("obj", scene, "q");
    const obj = new TextDecoder().decode(enc.files[0].bytes);
    expect(obj).toMatch(/^v 0 0 0 0\.(5|49999\d*) 0 1$/m);
    expect(obj).toContain("vt 0 0.75\n");
    expect(obj.match(/^usemtl M$/gm)).toHaveLength(2);
    expect(obj).toContain("f 1/1/1 2/2/2 3/3/3\n");
    expect(dec.scene.meshes[0].groups).toEqual(scene.meshes[0].groups);
    expect(dec.scene.nodes[0].materials).toEqual([0, 0]);
    expectCornersClose(dec.scene.meshes[0].colors!, dec.scene.meshes[0].indices, scene.meshes[0].colors!, scene.meshes[0].indices, 4, 1 / 255, "colours");
  });

  it("refuses non-finite UVs and colours through the decoded scene's budget", async () => {
    const tri = (v: string, vt: string) => new Map([["a.obj", bytes(`${v}\nv 1 0 0\nv 0 1 0\n${vt}\nf 1/1 2/1 3/1\n`)]]);
    await expect(decode("obj", tri("v 0 0 0", "vt nan 0"), "a.obj")).rejects.toThrow(/UVs that are not 2 finite numbers/);
    await expect(decode("obj", tri("v 0 0 0 1 inf 0", "vt 0 0"), "a.obj")).rejects.toThrow(/colours that are not 4 finite numbers/);
  });
});

describe("USDA asset data limits", () => {
  const mesh = (extra: string) => `#usda 1.0\ndef Mesh "M"\n{\n  int[] faceVertexCounts = [3]\n  int[] faceVertexIndices = [0, 1, 2]\n  point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]\n  uniform token subdivisionScheme = "none"\n${extra}\n}\n`;
  const read = (usda: string) => decode("usd", new Map([["m.usda", bytes(usda)]]), "m.usda");

  it.each([
    ["faceVarying UVs short of the corners", 'texCoord2f[] primvars:st = [(0, 0)] (\n interpolation = "faceVarying"\n)', "faceVarying primvars:st need 3 values but the file holds 1"],
    ["UV indices out of range", 'texCoord2f[] primvars:st = [(0, 0)] (\n interpolation = "faceVarying"\n)\n int[] primvars:st:indices = [0, 0, 7]', "primvars:st indices refer to element 7 of 1"],
    ["vertex colours short of the points", 'color3f[] primvars:displayColor = [(1, 0, 0)] (\n interpolation = "vertex"\n)', "vertex primvars:displayColor need 3 values but the file holds 1"],
    ["a subset naming a face that does not exist", 'def GeomSubset "s"\n{\n uniform token elementType = "face"\n uniform token familyName = "materialBind"\n int[] indices = [0, 2000000000]\n}', 'GeomSubset "s" refers to face 2000000000 of 1'],
    ["non-finite UVs", 'texCoord2f[] primvars:st = [(0, 0), (nan, 0), (0, 1)] (\n interpolation = "vertex"\n)', "UVs that are not 2 finite numbers"],
  ])("refuses %s", async (_label, extra, message) => {
    await expect(read(mesh(extra))).rejects.toThrow(message);
  });

  /** A triangle skinned to a two-joint Skeleton, with `skel` added to the Skeleton and `extra` to the mesh. */
  const skinned = (extra: string, skel = "") => `#usda 1.0\n(\n metersPerUnit = 1\n)\ndef SkelRoot "R"\n{\n  def Skeleton "S"\n  {\n    uniform token[] joints = ["A", "A/B"]\n    uniform matrix4d[] bindTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)), ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,1,0,1))]\n${skel}\n  }\n  def Mesh "M"\n  {\n    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 2]\n    point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]\n    uniform token subdivisionScheme = "none"\n    rel skel:skeleton = </R/S>\n${extra}\n  }\n}\n`;
  const influences = (indices: string, weights: string, size = "1") => `int[] primvars:skel:jointIndices = ${indices} (\n elementSize = ${size}\n interpolation = "vertex"\n)\n float[] primvars:skel:jointWeights = ${weights} (\n elementSize = ${size}\n interpolation = "vertex"\n)`;
  const shape = (body: string) => `uniform token[] skel:blendShapes = ["K"]\n rel skel:blendShapeTargets = [</R/M/K>]\n def BlendShape "K"\n {\n ${body}\n }`;

  it("reads a well-formed skinned triangle (the base of the hostile cases below)", async () => {
    const dec = await read(skinned(influences("[0, 1, 1]", "[1, 1, 1]"), 'def SkelAnimation "A"\n{\n uniform token[] joints = ["A/B"]\n float3[] translations.timeSamples = {\n 0: [(0, 1, 0)],\n 24: [(0, 2, 0)],\n }\n}\nrel skel:animationSource = <A>'));
    expect(dec.scene.skins?.[0].joints.map((j) => dec.scene.nodes[j].name)).toEqual(["A", "B"]);
    expect(dec.scene.animations[0].translations).toEqual([[0, 1, 0], [0, 2, 0]]);
  });

  it.each([
    ["a joint index past the skeleton's joints", influences("[0, 1, 7]", "[1, 1, 1]"), "", "joint index 7 is outside its 2 joints"],
    ["more joint indices than weights", influences("[0, 1, 1]", "[1, 1]"), "", "3 joint indices but 2 joint weights"],
    ["an elementSize of 2,000,000,000 over three values", influences("[0, 1, 1]", "[1, 1, 1]", "2000000000"), "", "vertex joint influences of elementSize 2000000000 need 6000000000 values but the file holds 3"],
    ["an elementSize that is not a whole number", influences("[0, 1, 1]", "[1, 1, 1]", "1.5"), "", "elementSize 1.5 is not a positive whole number"],
    ["a NaN joint weight", influences("[0, 1, 1]", "[1, nan, 1]"), "", "a joint weight is not finite"],
    ["skel:joints naming no joint of the skeleton", `uniform token[] skel:joints = ["A/C"]\n ${influences("[0, 0, 0]", "[1, 1, 1]")}`, "", 'skel:joints names "A/C", not a joint of its skeleton'],
    ["bind transforms for fewer joints than declared", "", 'uniform matrix4d[] restTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1))]', "restTransforms holds 16 numbers for 2 joints (16 each)"],
    ["an infinite rest transform", "", 'uniform matrix4d[] restTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)), ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,inf,0,1))]', "restTransforms has a number that is not finite"],
    ["animation keys for fewer joints than listed", "", 'def SkelAnimation "A"\n{\n uniform token[] joints = ["A", "A/B"]\n float3[] translations.timeSamples = {\n 0: [(0, 0, 0)],\n }\n}\nrel skel:animationSource = <A>', "animation translations holds 3 numbers for 2 joints (3 each)"],
    ["a NaN animated rotation", "", 'def SkelAnimation "A"\n{\n uniform token[] joints = ["A"]\n quatf[] rotations.timeSamples = {\n 0: [(nan, 0, 0, 0)],\n }\n}\nrel skel:animationSource = <A>', "animation rotations has a number that is not finite"],
    ["blend shape weights for fewer shapes than named", shape("uniform vector3f[] offsets = [(0,0,1), (0,0,0), (0,0,0)]"), 'def SkelAnimation "A"\n{\n uniform token[] blendShapes = ["K", "L"]\n float[] blendShapeWeights = [1]\n}\nrel skel:animationSource = <A>', "animation blendShapeWeights holds 1 numbers for 2 blend shapes (1 each)"],
    ["blend shape point indices outside the mesh", shape("uniform vector3f[] offsets = [(0,0,1)]\n uniform int[] pointIndices = [2000000000]"), "", 'blend shape "K": pointIndices refers to point 2000000000 of 3'],
    ["blend shape offsets short of the points", shape("uniform vector3f[] offsets = [(0,0,1)]"), "", 'blend shape "K": offsets hold 3 numbers for 3 points (3 each)'],
    ["a NaN blend shape offset", shape("uniform vector3f[] offsets = [(0,0,nan), (0,0,0), (0,0,0)]"), "", 'blend shape "K": an offset is not finite'],
  ])("refuses %s", async (_label, extra, skel, message) => {
    await expect(read(skinned(extra, skel))).rejects.toThrow(message);
  });

  it("reads faceVarying indexed UVs and subsets out of face order", async () => {
    const usda = `#usda 1.0\n(\n metersPerUnit = 1\n)\ndef Material "A"\n{\n}\ndef Mesh "M"\n{\n  int[] faceVertexCounts = [3, 3]\n  int[] faceVertexIndices = [0, 1, 2, 0, 2, 3]\n  point3f[] points = [(0,0,0), (1,0,0), (1,1,0), (0,1,0)]\n  uniform token subdivisionScheme = "none"\n  texCoord2f[] primvars:st = [(0, 0), (1, 1)] (\n interpolation = "faceVarying"\n)\n  int[] primvars:st:indices = [0, 1, 0, 1, 1, 1]\n  def GeomSubset "second"\n  {\n    uniform token elementType = "face"\n    uniform token familyName = "materialBind"\n    int[] indices = [1]\n    rel material:binding = </A>\n  }\n}\n`;
    const dec = await read(usda);
    const m = dec.scene.meshes[0];
    // Face 1 (subset "second") comes first; face 0, in no subset, forms the last, unbound slot.
    expect(m.groups).toEqual([{ start: 0, count: 3 }, { start: 3, count: 3 }]);
    expect(dec.scene.nodes[0].materials).toEqual([0, null]);
    const corner = (c: number) => Array.from(m.uvs![0].slice(2 * m.indices[c], 2 * m.indices[c] + 2));
    expect([0, 1, 2, 3, 4, 5].map(corner)).toEqual([[1, 0], [1, 0], [1, 0], [0, 1], [1, 0], [0, 1]]);
  });
});
