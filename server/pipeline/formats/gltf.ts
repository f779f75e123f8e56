/**
 * glTF 2.0 binary (.glb) writer and reader built on @gltf-transform/core.
 *
 * glTF is the interchange model's native convention, so nothing is converted: TRS, linear colours,
 * metres and -Z-facing lights/cameras map one to one. Lights use KHR_lights_punctual.
 */
import { Document, NodeIO, type Accessor, type Animation, type Material, type Mesh, type Node } from "@gltf-transform/core";
import { KHRLightsPunctual, Light } from "@gltf-transform/extensions";
import {
  computeNormals,
  meaninglessLightFieldWarnings,
  sequentialIndices,
  unusedMeshWarnings,
  validateScene,
  type DecodeResult,
  type EncodeResult,
  type InterchangeAnimation,
  type InterchangeNode,
  type InterchangeScene,
} from "./interchange";
import { checkGltfBudget, splitGlb } from "./gltf-budget";

const RAD = Math.PI / 180;

/** gltf-transform logger that turns its warnings and errors (e.g. unsupported extensions) into ours. */
function collectingLogger(warnings: string[], prefix: string) {
  const push = (text: string) => void (warnings.includes(prefix + text) || warnings.push(prefix + text));
  return { debug: () => {}, info: () => {}, warn: push, error: push };
}
const PATHS = [
  ["translations", "translation", "VEC3"],
  ["rotations", "rotation", "VEC4"],
  ["scales", "scale", "VEC3"],
] as const;

/** Writes the scene as a single self-contained .glb file. */
export async function encodeGltf(scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  validateScene(scene);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const lights = doc.createExtension(KHRLightsPunctual);
  const accessor = (type: "SCALAR" | "VEC3" | "VEC4", array: Float32Array | Uint32Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);

  const materials = scene.materials.map((m) => {
    const mat = doc.createMaterial(m.name).setBaseColorFactor([...m.color]).setMetallicFactor(m.metallic).setRoughnessFactor(m.roughness);
    // Without BLEND, viewers ignore a base colour alpha below 1.
    return m.color[3] < 1 ? mat.setAlphaMode("BLEND") : mat;
  });
  // glTF puts the material on the mesh primitive, so one glTF mesh per (mesh, material) pair in
  // use; pairs of the same mesh share its accessors, which is also how the reader re-unites them.
  const geometry = new Map<number, [Accessor, Accessor, Accessor]>();
  const meshCache = new Map<string, Mesh>();
  const meshFor = (meshIndex: number, materialIndex: number | undefined): Mesh => {
    const key = `${meshIndex}/${materialIndex ?? ""}`;
    let mesh = meshCache.get(key);
    if (!mesh) {
      const src = scene.meshes[meshIndex];
      let acc = geometry.get(meshIndex);
      if (!acc) geometry.set(meshIndex, (acc = [accessor("VEC3", src.positions), accessor("VEC3", src.normals), accessor("SCALAR", src.indices)]));
      const prim = doc.createPrimitive().setAttribute("POSITION", acc[0]).setAttribute("NORMAL", acc[1]).setIndices(acc[2]);
      if (materialIndex !== undefined) prim.setMaterial(materials[materialIndex]);
      mesh = doc.createMesh(src.name).addPrimitive(prim);
      meshCache.set(key, mesh);
    }
    return mesh;
  };

  const nodes = scene.nodes.map((n) => {
    const node = doc.createNode(n.name).setTranslation([...n.translation]).setRotation([...n.rotation]).setScale([...n.scale]);
    if (n.mesh !== undefined) node.setMesh(meshFor(n.mesh, n.material));
    if (n.light) {
      const light = lights.createLight(n.name).setType(n.light.type).setColor([...n.light.color]).setIntensity(n.light.intensity);
      if (n.light.range !== undefined && n.light.type !== "directional") light.setRange(n.light.range);
      if (n.light.type === "spot" && n.light.spotAngleDeg !== undefined) light.setOuterConeAngle(n.light.spotAngleDeg * RAD).setInnerConeAngle(0);
      node.setExtension(KHRLightsPunctual.EXTENSION_NAME, light);
    }
    if (n.camera) {
      const cam = doc.createCamera(n.name).setType("perspective").setYFov(n.camera.fovYDeg * RAD).setZNear(n.camera.near);
      // An infinite far plane is expressed in glTF by omitting zfar.
      node.setCamera(Number.isFinite(n.camera.far) ? cam.setZFar(n.camera.far) : cam);
    }
    return node;
  });
  const gltfScene = doc.createScene(baseName);
  scene.nodes.forEach((n, i) => (n.parent === null ? gltfScene.addChild(nodes[i]) : nodes[n.parent].addChild(nodes[i])));

  // One glTF animation (a clip in DCC tools) holds every channel; a second one is only opened when
  // two interchange animations drive the same node property, which one clip cannot hold.
  const clips: { anim: Animation; used: Set<string> }[] = [];
  for (const a of scene.animations) {
    const paths = PATHS.filter(([key]) => a[key]);
    let clip = clips.find((c) => paths.every(([, path]) => !c.used.has(`${a.node}/${path}`)));
    if (!clip) clips.push((clip = { anim: doc.createAnimation(clips.length ? `Animation_${clips.length + 1}` : "Animation"), used: new Set() }));
    const input = accessor("SCALAR", Float32Array.from(a.times));
    for (const [key, path, type] of paths) {
      const sampler = doc.createAnimationSampler().setInput(input).setOutput(accessor(type, Float32Array.from(a[key]!.flat()))).setInterpolation("LINEAR");
      clip.anim.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(nodes[a.node]).setTargetPath(path).setSampler(sampler));
      clip.used.add(`${a.node}/${path}`);
    }
  }
  const warnings = [...unusedMeshWarnings(scene, "gltf"), ...meaninglessLightFieldWarnings(scene, "gltf")];
  const bytes = await new NodeIO().registerExtensions([KHRLightsPunctual]).setLogger(collectingLogger(warnings, "gltf: writer: ")).writeBinary(doc);
  return { files: [{ name: `${baseName}.glb`, bytes }], warnings };
}

/** Float32 copy of an accessor, dequantising normalised integer storage (KHR_mesh_quantization). */
function floats(acc: Accessor): Float32Array {
  const arr = acc.getArray();
  if (arr instanceof Float32Array && !acc.getNormalized()) return Float32Array.from(arr);
  const size = acc.getElementSize();
  const out = new Float32Array(acc.getCount() * size);
  const el: number[] = [];
  for (let i = 0; i < acc.getCount(); i++) out.set(acc.getElement(i, el), i * size);
  return out;
}

/** Reads a .glb (or a .gltf whose buffers are among `files`) into the interchange model. */
export async function decodeGltf(files: Map<string, Uint8Array>, mainName: string): Promise<DecodeResult> {
  const main = files.get(mainName);
  if (!main) throw new Error(`gltf: ${mainName} not among the given files`);
  const warnings: string[] = [];
  const warnOnce = (msg: string) => void (warnings.includes(msg) || warnings.push(msg));
  const io = new NodeIO().registerExtensions([KHRLightsPunctual]).setLogger(collectingLogger(warnings, "gltf: reader: "));
  const isJson = mainName.toLowerCase().endsWith(".gltf");
  let json: unknown, bin = 0;
  if (isJson) {
    try {
      json = JSON.parse(new TextDecoder().decode(main));
    } catch (e) {
      throw new Error(`gltf: not JSON (${(e as Error).message})`);
    }
  } else ({ json, bin } = splitGlb(main));
  checkGltfBudget(json, bin, files);
  const doc = isJson
    ? await io.readJSON({ json: json as never, resources: Object.fromEntries(files) as Record<string, Uint8Array<ArrayBuffer>> })
    : await io.readBinary(main);
  const root = doc.getRoot();
  if (root.listScenes().length > 1) warnOnce(`gltf: ${root.listScenes().length} scenes merged into one`);
  const out: InterchangeScene = { nodes: [], meshes: [], materials: [], animations: [] };

  const materialIndex = new Map<Material, number>();
  for (const m of root.listMaterials()) {
    materialIndex.set(m, out.materials.length);
    const f = m.getBaseColorFactor();
    out.materials.push({ name: m.getName(), color: [f[0], f[1], f[2], f[3]], metallic: m.getMetallicFactor(), roughness: m.getRoughnessFactor() });
    const textures = [m.getBaseColorTexture(), m.getMetallicRoughnessTexture(), m.getNormalTexture(), m.getOcclusionTexture(), m.getEmissiveTexture()];
    if (textures.some(Boolean)) warnOnce(`gltf: material "${m.getName()}": textures dropped (interchange has no textures)`);
    if (m.getEmissiveFactor().some((c) => c !== 0)) warnOnce(`gltf: material "${m.getName()}": emissive colour dropped`);
    for (const ext of m.listExtensions()) warnOnce(`gltf: material "${m.getName()}": ${ext.extensionName} dropped`);
  }

  const accessorIds = new Map<Accessor, number>();
  const accessorId = (a: Accessor) => accessorIds.get(a) ?? accessorIds.set(a, accessorIds.size).size - 1;
  const gltfNodes = root.listNodes();
  const nodeIndex = new Map<Node, number>(gltfNodes.map((n, i) => [n, i]));
  // Primitives sharing position/normal/index accessors are one interchange mesh (see the writer).
  const primIndex = new Map<string, number>();
  const extra: { parent: number; name: string; mesh: number; material?: number }[] = [];
  for (const n of gltfNodes) {
    const parent = n.getParentNode();
    const node: InterchangeNode = {
      name: n.getName(),
      parent: parent ? nodeIndex.get(parent)! : null,
      translation: [...n.getTranslation()],
      rotation: [...n.getRotation()],
      scale: [...n.getScale()],
    };
    const self = out.nodes.push(node) - 1;
    if (n.getSkin()) warnOnce(`gltf: node "${node.name}": skin dropped (interchange has no skinning)`);
    const mesh = n.getMesh();
    // Each triangle primitive becomes an interchange mesh; the first rides on the node, any others on
    // identity child nodes, because an interchange node carries one mesh and one material.
    mesh?.listPrimitives().forEach((prim, k) => {
      if (prim.getMode() !== 4) return warnOnce(`gltf: mesh "${mesh.getName()}" primitive ${k}: non-triangle mode ${prim.getMode()} dropped`);
      for (const s of prim.listSemantics()) if (s !== "POSITION" && s !== "NORMAL") warnOnce(`gltf: mesh "${mesh.getName()}": attribute ${s} dropped`);
      if (prim.listTargets().length) warnOnce(`gltf: mesh "${mesh.getName()}": morph targets dropped`);
      const geometryKey = [prim.getAttribute("POSITION"), prim.getAttribute("NORMAL"), prim.getIndices()].map((a) => (a ? accessorId(a) : -1)).join("/");
      let meshIdx = primIndex.get(geometryKey);
      if (meshIdx === undefined) {
        const positions = floats(prim.getAttribute("POSITION")!);
        const idx = prim.getIndices();
        const indices = idx ? Uint32Array.from(idx.getArray()!) : sequentialIndices(positions.length / 3);
        const normalAcc = prim.getAttribute("NORMAL");
        if (!normalAcc) warnOnce(`gltf: mesh "${mesh.getName()}": had no normals; smooth normals computed`);
        meshIdx = out.meshes.push({ name: mesh.getName(), positions, indices, normals: normalAcc ? floats(normalAcc) : computeNormals(positions, indices) }) - 1;
        primIndex.set(geometryKey, meshIdx);
      }
      const mat = prim.getMaterial();
      const material = mat ? materialIndex.get(mat) : undefined;
      if (k === 0) Object.assign(node, { mesh: meshIdx }, material === undefined ? {} : { material });
      else {
        extra.push({ parent: self, name: `${node.name}_primitive${k}`, mesh: meshIdx, material });
        warnOnce(`gltf: mesh "${mesh.getName()}": primitive ${k} moved to child node "${node.name}_primitive${k}"`);
      }
    });
    const light = n.getExtension<Light>(KHRLightsPunctual.EXTENSION_NAME);
    if (light) {
      const type = light.getType() as "directional" | "point" | "spot";
      node.light = { type, color: [...light.getColor()], intensity: light.getIntensity() };
      if (light.getRange() !== null) node.light.range = light.getRange()!;
      if (type === "spot") {
        node.light.spotAngleDeg = light.getOuterConeAngle() / RAD;
        if (light.getInnerConeAngle() !== 0) warnOnce(`gltf: light "${node.name}": inner cone angle dropped`);
      }
    }
    const cam = n.getCamera();
    if (cam?.getType() === "perspective") {
      node.camera = { fovYDeg: cam.getYFov() / RAD, near: cam.getZNear(), far: cam.getZFar() ?? Infinity };
      if (cam.getAspectRatio() !== null) warnOnce(`gltf: camera "${node.name}": aspect ratio dropped`);
    } else if (cam) warnOnce(`gltf: camera "${node.name}": orthographic camera dropped`);
  }
  for (const m of root.listMeshes()) if (!m.listParents().some((p) => p.propertyType === "Node")) warnOnce(`gltf: unused mesh "${m.getName()}" dropped`);
  for (const e of extra) out.nodes.push({ name: e.name, parent: e.parent, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: e.mesh, ...(e.material === undefined ? {} : { material: e.material }) });

  for (const anim of root.listAnimations()) {
    // Channels of one node that share an input accessor become one InterchangeAnimation.
    const groups = new Map<string, InterchangeAnimation>();
    for (const ch of anim.listChannels()) {
      const sampler = ch.getSampler()!;
      const target = ch.getTargetNode();
      const path = ch.getTargetPath();
      const entry = PATHS.find(([, p]) => p === path);
      if (!target || !entry) {
        warnOnce(`gltf: animation "${anim.getName()}": ${path} channel dropped`);
        continue;
      }
      const input = sampler.getInput()!;
      const key = `${nodeIndex.get(target)}/${accessorId(input)}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { node: nodeIndex.get(target)!, times: Array.from(floats(input)) }));
      const values = Array.from(floats(sampler.getOutput()!));
      const size = entry[2] === "VEC4" ? 4 : 3;
      const interp = sampler.getInterpolation();
      // CUBICSPLINE stores [in-tangent, value, out-tangent] per key; keep the values, drop tangents.
      const stride = interp === "CUBICSPLINE" ? size * 3 : size;
      const offset = interp === "CUBICSPLINE" ? size : 0;
      if (interp !== "LINEAR") warnOnce(`gltf: animation "${anim.getName()}": ${interp} interpolation converted to LINEAR`);
      const keys = group.times.map((_, k) => values.slice(k * stride + offset, k * stride + offset + size));
      (group as unknown as Record<string, number[][]>)[entry[0]] = keys;
    }
    out.animations.push(...groups.values());
  }
  return { scene: out, warnings };
}
