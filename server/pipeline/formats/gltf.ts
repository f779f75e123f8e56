/**
 * glTF 2.0 binary (.glb) writer and reader built on @gltf-transform/core.
 *
 * glTF is the interchange model's native convention, so nothing is converted: TRS, linear colours,
 * metres and -Z-facing lights/cameras map one to one. Lights use KHR_lights_punctual.
 */
import { Document, NodeIO, type Accessor, type Animation, type Material, type Mesh, type Node, type Skin, type Texture } from "@gltf-transform/core";
import { KHRLightsPunctual, KHRTextureTransform, Light, type Transform } from "@gltf-transform/extensions";
import {
  meaninglessLightFieldWarnings,
  unusedMeshWarnings,
  validateScene,
  type DecodeResult,
  type EncodeResult,
  type InterchangeAnimation,
  type InterchangeMaterial,
  type InterchangeNode,
  type InterchangeScene,
  type InterchangeTexture,
  TEXTURE_SLOTS,
} from "./interchange";
import { floats, readGltfMesh } from "./gltf-mesh";
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
  ["weights", "weights", "SCALAR"],
] as const;

/** Writes the scene as a single self-contained .glb file. */
export async function encodeGltf(scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  validateScene(scene);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const lights = doc.createExtension(KHRLightsPunctual);
  const transforms = doc.createExtension(KHRTextureTransform);
  const accessor = (type: "SCALAR" | "VEC2" | "VEC3" | "VEC4" | "MAT4", array: Float32Array | Uint32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);

  // Image bytes are written as they came (PNG or JPEG), one glTF texture per image.
  const textures = (scene.images ?? []).map((img) => doc.createTexture(img.name).setImage(img.bytes).setMimeType(img.mimeType));
  const materials = scene.materials.map((m) => {
    const mat = doc.createMaterial(m.name).setBaseColorFactor([...m.color]).setMetallicFactor(m.metallic).setRoughnessFactor(m.roughness);
    if (m.emissive) mat.setEmissiveFactor([...m.emissive]);
    // Without BLEND, viewers ignore a base colour alpha below 1.
    mat.setAlphaMode(m.alphaMode ?? (m.color[3] < 1 ? "BLEND" : "OPAQUE"));
    if (m.alphaMode === "MASK" && m.alphaCutoff !== undefined) mat.setAlphaCutoff(m.alphaCutoff);
    if (m.doubleSided) mat.setDoubleSided(true);
    if (m.extras) mat.setExtras(m.extras);
    for (const slot of TEXTURE_SLOTS) {
      const t = m.textures?.[slot];
      if (!t) continue;
      const setter = { baseColor: "setBaseColorTexture", normal: "setNormalTexture", metallicRoughness: "setMetallicRoughnessTexture", occlusion: "setOcclusionTexture", emissive: "setEmissiveTexture" } as const;
      const getter = { baseColor: "getBaseColorTextureInfo", normal: "getNormalTextureInfo", metallicRoughness: "getMetallicRoughnessTextureInfo", occlusion: "getOcclusionTextureInfo", emissive: "getEmissiveTextureInfo" } as const;
      mat[setter[slot]](textures[t.image]);
      const info = mat[getter[slot]]()!.setTexCoord(t.uv);
      if (t.offset || t.scale || t.rotation) {
        const tr = transforms.createTransform().setOffset(t.offset ?? [0, 0]).setScale(t.scale ?? [1, 1]).setRotation(t.rotation ?? 0);
        if (t.uv !== 0) tr.setTexCoord(t.uv);
        info.setExtension(KHRTextureTransform.EXTENSION_NAME, tr);
      }
    }
    return mat;
  });
  // glTF puts materials on mesh primitives, so one glTF mesh per (mesh, materials) pair in use;
  // pairs of the same mesh share its vertex accessors, which is also how the reader re-unites them.
  // A mesh with groups (material slots) becomes one primitive per group over the same vertices.
  type Shared = { attributes: [string, Accessor][]; indices: Accessor[]; targets: { name: string; attributes: [string, Accessor][] }[] };
  const geometry = new Map<number, Shared>();
  const sharedOf = (meshIndex: number): Shared => {
    let shared = geometry.get(meshIndex);
    if (shared) return shared;
    const src = scene.meshes[meshIndex];
    const attributes: [string, Accessor][] = [["POSITION", accessor("VEC3", src.positions)], ["NORMAL", accessor("VEC3", src.normals)]];
    (src.uvs ?? []).forEach((uv, k) => attributes.push([`TEXCOORD_${k}`, accessor("VEC2", uv)]));
    if (src.colors) attributes.push(["COLOR_0", accessor("VEC4", src.colors)]);
    if (src.joints && src.weights) attributes.push(["JOINTS_0", accessor("VEC4", src.joints)], ["WEIGHTS_0", accessor("VEC4", src.weights)]);
    const groups = src.groups ?? [{ start: 0, count: src.indices.length }];
    const indices = groups.map((g) => accessor("SCALAR", src.indices.subarray(g.start, g.start + g.count)));
    const targets = (src.morphTargets ?? []).map((t) => ({
      name: t.name,
      attributes: [["POSITION", accessor("VEC3", t.positions)], ...(t.normals ? [["NORMAL", accessor("VEC3", t.normals)] as [string, Accessor]] : [])] as [string, Accessor][],
    }));
    geometry.set(meshIndex, (shared = { attributes, indices, targets }));
    return shared;
  };
  const meshCache = new Map<string, Mesh>();
  const meshFor = (meshIndex: number, slots: (number | null | undefined)[]): Mesh => {
    const key = `${meshIndex}/${slots.join(",")}`;
    let mesh = meshCache.get(key);
    if (!mesh) {
      const src = scene.meshes[meshIndex];
      const shared = sharedOf(meshIndex);
      mesh = doc.createMesh(src.name);
      shared.indices.forEach((idx, g) => {
        const prim = doc.createPrimitive().setIndices(idx);
        for (const [semantic, acc] of shared.attributes) prim.setAttribute(semantic, acc);
        for (const t of shared.targets) {
          const target = doc.createPrimitiveTarget(t.name);
          for (const [semantic, acc] of t.attributes) target.setAttribute(semantic, acc);
          prim.addTarget(target);
        }
        const material = slots[g];
        if (material !== undefined && material !== null) prim.setMaterial(materials[material]);
        mesh!.addPrimitive(prim);
      });
      if (shared.targets.length) {
        mesh.setWeights(src.morphWeights ?? shared.targets.map(() => 0));
        // Blender's importer and exporter name shape keys through extras.targetNames.
        mesh.setExtras({ ...(src.extras ?? {}), targetNames: shared.targets.map((t) => t.name) });
      } else if (src.extras) mesh.setExtras(src.extras);
      meshCache.set(key, mesh);
    }
    return mesh;
  };

  const nodes = scene.nodes.map((n) => {
    const node = doc.createNode(n.name).setTranslation([...n.translation]).setRotation([...n.rotation]).setScale([...n.scale]);
    if (n.mesh !== undefined) node.setMesh(meshFor(n.mesh, scene.meshes[n.mesh].groups ? (n.materials ?? []) : [n.material]));
    if (n.morphWeights) node.setWeights([...n.morphWeights]);
    if (n.extras) node.setExtras(n.extras);
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
  const skins = (scene.skins ?? []).map((s) => {
    const skin = doc.createSkin(s.name).setInverseBindMatrices(accessor("MAT4", s.inverseBindMatrices));
    for (const j of s.joints) skin.addJoint(nodes[j]);
    return skin;
  });
  scene.nodes.forEach((n, i) => n.skin !== undefined && nodes[i].setSkin(skins[n.skin]));
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
      const sampler = doc.createAnimationSampler().setInput(input).setOutput(accessor(type, Float32Array.from((a[key] as number[][]).flat()))).setInterpolation("LINEAR");
      clip.anim.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(nodes[a.node]).setTargetPath(path).setSampler(sampler));
      clip.used.add(`${a.node}/${path}`);
    }
  }
  const warnings = [...unusedMeshWarnings(scene, "gltf"), ...meaninglessLightFieldWarnings(scene, "gltf")];
  const bytes = await new NodeIO().registerExtensions([KHRLightsPunctual, KHRTextureTransform]).setLogger(collectingLogger(warnings, "gltf: writer: ")).writeBinary(doc);
  return { files: [{ name: `${baseName}.glb`, bytes }], warnings };
}

/** Reads a .glb (or a .gltf whose buffers are among `files`) into the interchange model. */
export async function decodeGltf(files: Map<string, Uint8Array>, mainName: string): Promise<DecodeResult> {
  const main = files.get(mainName);
  if (!main) throw new Error(`gltf: ${mainName} not among the given files`);
  const warnings: string[] = [];
  const warnOnce = (msg: string) => void (warnings.includes(msg) || warnings.push(msg));
  const io = new NodeIO().registerExtensions([KHRLightsPunctual, KHRTextureTransform]).setLogger(collectingLogger(warnings, "gltf: reader: "));
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

  // Images: PNG and JPEG bytes are kept as they are; other encodings (WebP, KTX2) are dropped.
  out.images = [];
  const imageIndex = new Map<Texture, number>();
  for (const t of root.listTextures()) {
    const mime = t.getMimeType(), bytes = t.getImage();
    if ((mime === "image/png" || mime === "image/jpeg") && bytes) imageIndex.set(t, out.images.push({ name: t.getName() || t.getURI().replace(/^.*\//, "") || `image${out.images.length}`, mimeType: mime, bytes: Uint8Array.from(bytes) }) - 1);
    else warnOnce(`gltf: texture "${t.getName() || t.getURI()}": ${mime || "unknown"} image dropped (PNG and JPEG are carried)`);
  }
  const materialIndex = new Map<Material, number>();
  for (const m of root.listMaterials()) {
    materialIndex.set(m, out.materials.length);
    const f = m.getBaseColorFactor();
    const mat: InterchangeMaterial = { name: m.getName(), color: [f[0], f[1], f[2], f[3]], metallic: m.getMetallicFactor(), roughness: m.getRoughnessFactor() };
    const slots = {
      baseColor: [m.getBaseColorTexture(), m.getBaseColorTextureInfo()],
      normal: [m.getNormalTexture(), m.getNormalTextureInfo()],
      metallicRoughness: [m.getMetallicRoughnessTexture(), m.getMetallicRoughnessTextureInfo()],
      occlusion: [m.getOcclusionTexture(), m.getOcclusionTextureInfo()],
      emissive: [m.getEmissiveTexture(), m.getEmissiveTextureInfo()],
    } as const;
    for (const slot of TEXTURE_SLOTS) {
      const [texture, info] = slots[slot];
      const image = texture ? imageIndex.get(texture) : undefined;
      if (!texture || image === undefined || !info) continue;
      const tr = info.getExtension<Transform>(KHRTextureTransform.EXTENSION_NAME);
      const uv = (tr?.getTexCoord() ?? info.getTexCoord());
      if (uv > 1) {
        warnOnce(`gltf: material "${m.getName()}": ${slot} texture on UV set ${uv} dropped (two UV sets are carried)`);
        continue;
      }
      const tex: InterchangeTexture = { image, uv: uv as 0 | 1 };
      if (tr) Object.assign(tex, { offset: [...tr.getOffset()], scale: [...tr.getScale()], rotation: tr.getRotation() });
      (mat.textures ??= {})[slot] = tex;
    }
    if (m.getEmissiveFactor().some((c) => c !== 0)) mat.emissive = [...m.getEmissiveFactor()] as [number, number, number];
    if (m.getAlphaMode() !== "OPAQUE") mat.alphaMode = m.getAlphaMode();
    if (m.getAlphaMode() === "MASK") mat.alphaCutoff = m.getAlphaCutoff();
    if (m.getDoubleSided()) mat.doubleSided = true;
    if (Object.keys(m.getExtras() ?? {}).length) mat.extras = m.getExtras();
    if (m.getNormalTexture() && m.getNormalScale() !== 1) warnOnce(`gltf: material "${m.getName()}": normal scale dropped`);
    if (m.getOcclusionTexture() && m.getOcclusionStrength() !== 1) warnOnce(`gltf: material "${m.getName()}": occlusion strength dropped`);
    for (const ext of m.listExtensions()) warnOnce(`gltf: material "${m.getName()}": ${ext.extensionName} dropped`);
    out.materials.push(mat);
  }

  const accessorIds = new Map<Accessor, number>();
  const accessorId = (a: Accessor) => accessorIds.get(a) ?? accessorIds.set(a, accessorIds.size).size - 1;
  const gltfNodes = root.listNodes();
  const nodeIndex = new Map<Node, number>(gltfNodes.map((n, i) => [n, i]));
  // Meshes sharing their vertex and index accessors (the writer's per-material copies) are one interchange mesh.
  const meshByKey = new Map<string, number>();
  const readMeshes = new Map<Mesh, { index: number; materials: (number | undefined)[] } | null>();
  const meshOf = (mesh: Mesh) => {
    if (readMeshes.has(mesh)) return readMeshes.get(mesh)!;
    const read = readGltfMesh(mesh, warnOnce);
    let entry: { index: number; materials: (number | undefined)[] } | null = null;
    if (read) {
      const key = mesh.listPrimitives().map((p) => [p.getAttribute("POSITION"), p.getIndices(), ...p.listTargets()].map((a) => (a ? accessorId(a as Accessor) : -1)).join("/")).join("|");
      const index = meshByKey.get(key) ?? meshByKey.set(key, out.meshes.push(read.mesh) - 1).get(key)!;
      entry = { index, materials: read.materials.map((m) => (m ? materialIndex.get(m) : undefined)) };
    }
    readMeshes.set(mesh, entry);
    return entry;
  };
  const skins = root.listSkins();
  const skinIndex = new Map<Skin, number>();
  for (const n of gltfNodes) {
    const parent = n.getParentNode();
    const node: InterchangeNode = {
      name: n.getName(),
      parent: parent ? nodeIndex.get(parent)! : null,
      translation: [...n.getTranslation()],
      rotation: [...n.getRotation()],
      scale: [...n.getScale()],
    };
    out.nodes.push(node);
    if (Object.keys(n.getExtras() ?? {}).length) node.extras = n.getExtras();
    const mesh = n.getMesh();
    const read = mesh ? meshOf(mesh) : null;
    if (read) {
      node.mesh = read.index;
      const interchangeMesh = out.meshes[read.index];
      if (interchangeMesh.groups) node.materials = read.materials.map((m) => m ?? null);
      else if (read.materials[0] !== undefined) node.material = read.materials[0];
      const weights = n.getWeights();
      if (weights.length && weights.length === (interchangeMesh.morphTargets?.length ?? -1)) node.morphWeights = [...weights];
      const skin = n.getSkin();
      if (skin && interchangeMesh.joints) {
        if (!skinIndex.has(skin)) skinIndex.set(skin, skinIndex.size);
        node.skin = skinIndex.get(skin);
      } else if (skin) warnOnce(`gltf: node "${node.name}": skin without JOINTS_0/WEIGHTS_0 dropped`);
    } else if (n.getSkin()) warnOnce(`gltf: node "${node.name}": skin without a mesh dropped`);
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
  out.skins = [...skinIndex.keys()].map((skin) => {
    const joints = skin.listJoints().map((j) => nodeIndex.get(j)!);
    const ibm = skin.getInverseBindMatrices();
    const matrices = ibm && ibm.getCount() === joints.length && ibm.getType() === "MAT4" ? floats(ibm) : new Float32Array(joints.length * 16);
    if (!(ibm && ibm.getCount() === joints.length)) for (let j = 0; j < joints.length; j++) for (let d = 0; d < 4; d++) matrices[j * 16 + d * 5] = 1;
    return { name: skin.getName() || "Skin", joints, inverseBindMatrices: matrices };
  });
  // Joint indices past a skin's joints would bind a vertex to nothing: such skins are dropped.
  out.nodes.forEach((node) => {
    if (node.skin === undefined) return;
    const joints = out.meshes[node.mesh!].joints!, count = out.skins![node.skin].joints.length;
    for (let k = 0; k < joints.length; k++)
      if (joints[k] >= count) {
        warnOnce(`gltf: node "${node.name}": joint index ${joints[k]} beyond its skin's ${count} joints; skin dropped`);
        delete node.skin;
        return;
      }
  });
  if (out.skins.length === 0) delete out.skins;
  if (out.images.length === 0) delete out.images;

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
      const targetMesh = nodeIndex.has(target) ? out.nodes[nodeIndex.get(target)!].mesh : undefined;
      const size = entry[2] === "VEC4" ? 4 : entry[2] === "VEC3" ? 3 : (targetMesh === undefined ? 0 : out.meshes[targetMesh].morphTargets?.length ?? 0);
      if (size === 0) {
        warnOnce(`gltf: animation "${anim.getName()}": weights of a node without morph targets dropped`);
        continue;
      }
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
