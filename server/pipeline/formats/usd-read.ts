/**
 * USD reader: interprets a parsed USDA layer (usda-parse.ts) as the interchange model. It reads
 * everything usd.ts writes and the common shapes other exporters use (Xform + child Mesh, transform
 * ops other than TRS, faceVarying normals, polygons, Z up, centimetres), with UV sets, vertex colours
 * and material subsets (usd-mesh.ts) and UsdPreviewSurface textures whose images are read from
 * beside the file only (usd-shading.ts, side-images.ts), skins, skeletal animation and blend shapes
 * through UsdSkel (usd-skel-read.ts); whatever it cannot carry
 * is reported as a warning. three's USDLoader cannot replace it: it drops customData (original
 * names) and maps materials, lights and timing through three.js types.
 */
import { Euler, Matrix4, Quaternion, Vector3 } from "three";
import { parseUsda, type UsdDict, type UsdPath, type UsdPrim, type UsdProperty, type UsdValue } from "./usda-parse";
import { decomposeTrs, type DecodeResult, type InterchangeMaterial, type InterchangeAnimation, type InterchangeNode, type InterchangeScene } from "./interchange";
import { readMesh, subsetBindings } from "./usd-mesh";
import { readTextures } from "./usd-shading";
import { SideImages } from "./side-images";
import { SkelReader } from "./usd-skel-read";
import { readPropertyAttributes, readUserProperties } from "./usd-properties";
import { UsdaPrescan } from "./prescan";

const LIGHT_TYPES = new Set(["DistantLight", "SphereLight", "RectLight", "DiskLight", "DomeLight", "CylinderLight"]);
// Read through the material pass, or through their Skeleton and meshes (usd-skel-read.ts).
const SKIPPED_TYPES = new Set(["Material", "Shader", "NodeGraph", "SkelAnimation", "BlendShape"]);
/** Prims that are part of a Mesh prim rather than children in the scene. */
const MESH_PARTS = new Set(["GeomSubset", "BlendShape"]);
const TRS_OPS = ["translate", "orient", "scale"] as const;
type Vec = number[];

const num = (v: UsdValue | undefined, fallback: number) => (typeof v === "number" ? v : fallback);
const vec = (v: UsdValue | undefined): Vec | undefined => (Array.isArray(v) ? (v as Vec) : undefined);
const input = (p: UsdPrim, name: string): UsdProperty | undefined => p.properties.get(`inputs:${name}`) ?? p.properties.get(name);
/** USD text quaternions are (w, x, y, z). */
const quat = (v: Vec) => new Quaternion(v[1], v[2], v[3], v[0]);

/** Local matrix of one transform op from its value; null for ops we do not understand. */
function opMatrix(op: string, v: UsdValue): Matrix4 | null {
  const a = vec(v);
  const kind = op.split(":")[1];
  // USD row vectors = three column-major order; a single matrix4d parses as nested tuples.
  const flat = a?.flat(2) as Vec | undefined;
  if (kind === "transform" && flat?.length === 16 && flat.every((x) => typeof x === "number")) return new Matrix4().fromArray(flat);
  if (typeof v === "number" && /^rotate[XYZ]$/.test(kind)) return new Matrix4().makeRotationAxis(new Vector3(+(kind === "rotateX"), +(kind === "rotateY"), +(kind === "rotateZ")), (v * Math.PI) / 180);
  if (!a) return null;
  if (kind === "translate") return new Matrix4().makeTranslation(a[0], a[1], a[2]);
  if (kind === "scale") return new Matrix4().makeScale(a[0], a[1], a[2]);
  if (kind === "orient") return new Matrix4().makeRotationFromQuaternion(quat(a));
  const order = /^rotate([XYZ]{3})$/.exec(kind)?.[1];
  // USD rotateXYZ applies X first; three's Euler order names the outermost axis first, so reverse it.
  const rad = (d: number) => (d * Math.PI) / 180;
  if (order) return new Matrix4().makeRotationFromEuler(new Euler(rad(a[0]), rad(a[1]), rad(a[2]), order.split("").reverse().join("") as "XYZ"));
  return null;
}

/** Reads a .usda file into the interchange model. */
export async function decodeUsd(files: Map<string, Uint8Array>, mainName: string): Promise<DecodeResult> {
  const bytes = files.get(mainName);
  if (!bytes) throw new Error(`usd: ${mainName} not among the given files`);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) === "PXR-USDC") throw new Error("usd: binary USDC is not supported; convert to USDA");
  // The string and path lengths are measured before the text is decoded, wherever this reader is
  // called from (import_asset pre-scans the file too; a side-file or in-process decode does not).
  const prescan = new UsdaPrescan();
  prescan.push(bytes);
  prescan.end();
  const layer = parseUsda(new TextDecoder().decode(bytes));
  const warnings: string[] = [];
  const warn = (msg: string) => void (warnings.includes(msg) || warnings.push(msg));
  const scene: InterchangeScene = { nodes: [], meshes: [], materials: [], animations: [] };
  const images = new SideImages(files, scene, warn, "usd");
  // USD's fallbacks are centimetres and Y up; a Z-up stage is turned upright like a parent rotation.
  const mpu = num(layer.metadata.metersPerUnit, 0.01);
  const tcps = num(layer.metadata.timeCodesPerSecond, 24);
  const rootTurn = layer.metadata.upAxis === "Z" ? new Matrix4().makeRotationX(-Math.PI / 2) : null;
  const nameOf = (p: UsdPrim) => ((p.metadata.customData as UsdDict | undefined)?.kilnName as string | undefined) ?? p.name;
  // customData.userProperties (Kiln's and most tools'), and userProperties:* attributes (Blender 4's).
  const propertiesOf = (p: UsdPrim, what: string) => {
    const label = `${what} "${nameOf(p)}"`;
    const attributes = readPropertyAttributes(p, label, warn), data = readUserProperties(p.metadata.customData, "userProperties", label, warn);
    return attributes && data ? { ...attributes, ...data } : attributes ?? data;
  };

  // Materials first (anywhere in the layer), so bindings can refer to them by path.
  const materialByPath = new Map<string, number>();
  const prims = new Map<string, UsdPrim>();
  const index = (p: UsdPrim) => (prims.set(p.path, p), p.children.forEach(index));
  layer.prims.forEach(index);
  for (const p of prims.values()) {
    if (p.type !== "Material") continue;
    const target = (p.properties.get("outputs:surface")?.connect as UsdPath | undefined)?.path.split(".")[0];
    const shader = (target && prims.get(target)) || p.children.find((c) => c.properties.get("info:id")?.value === "UsdPreviewSurface");
    if (!shader) warn(`usd: material "${nameOf(p)}" has no UsdPreviewSurface; default values used`);
    const get = (name: string) => (shader ? input(shader, name) : undefined);
    const c = vec(get("diffuseColor")?.value) ?? [0.18, 0.18, 0.18];
    const material: InterchangeMaterial = { name: nameOf(p), color: [c[0], c[1], c[2], num(get("opacity")?.value, 1)], metallic: num(get("metallic")?.value, 0), roughness: num(get("roughness")?.value, 0.5) };
    const textures = shader && readTextures(shader, prims, material.name, images, warn);
    if (textures) material.textures = textures;
    const emissive = vec(get("emissiveColor")?.value);
    if (emissive?.some((v) => v !== 0)) material.emissive = [emissive[0], emissive[1], emissive[2]];
    const cutoff = num(get("opacityThreshold")?.value, 0);
    if (cutoff > 0) Object.assign(material, { alphaMode: "MASK", alphaCutoff: cutoff });
    if ((p.metadata.customData as UsdDict | undefined)?.kilnDoubleSided) material.doubleSided = true;
    const extras = propertiesOf(p, "material");
    if (extras) material.extras = extras;
    materialByPath.set(p.path, scene.materials.push(material) - 1);
  }

  const skel = new SkelReader(prims, scene, mpu, tcps, warn);
  /** The prim each node was read from, so a prim's properties go to one object only. */
  const nodePrim = new Map<number, string>();
  const meshByKilnIndex = new Map<number, ReturnType<typeof readMesh>>();
  const attachMesh = (p: UsdPrim, node: InterchangeNode, index: number) => {
    const shared = (p.metadata.customData as UsdDict | undefined)?.kilnMesh;
    const read = typeof shared === "number" && meshByKilnIndex.has(shared) ? meshByKilnIndex.get(shared)! : readMesh(p, nameOf(p), mpu, warn, scene);
    node.mesh = read.mesh;
    // A Mesh prim that is its node's own prim (a transformed Mesh) gave its properties to the node.
    const extras = p.path === nodePrim.get(index) ? undefined : propertiesOf(p, "mesh");
    if (extras && !scene.meshes[read.mesh].extras) scene.meshes[read.mesh].extras = extras;
    skel.noteMesh(p, index, read);
    if (typeof shared === "number") meshByKilnIndex.set(shared, read);
    const binding = p.properties.get("material:binding")?.value;
    const own = (Array.isArray(binding) ? (binding[0] as UsdPath) : (binding as UsdPath | undefined))?.path;
    const material = (path: string | undefined) => {
      if (path === undefined) return undefined;
      const m = materialByPath.get(path);
      if (m === undefined) warn(`usd: mesh "${nameOf(p)}": bound material ${path} not found`);
      return m;
    };
    // A subset without a binding of its own shows the mesh's material, as USD resolves bindings.
    // A mesh shared by several nodes is read once; each node's prim binds its own materials.
    const bindings = subsetBindings(p);
    const slots = read.slots?.map((s, k) => material((shared === undefined ? s : bindings[k]) ?? own));
    if (scene.meshes[read.mesh].groups) node.materials = slots!.map((m) => m ?? null);
    else {
      const m = slots ? slots[0] : material(own);
      if (m !== undefined) node.material = m;
    }
    if (read.doubleSided) for (const m of [node.material, ...(node.materials ?? [])]) if (m !== undefined && m !== null) scene.materials[m].doubleSided = true;
  };
  // A light's or camera's own properties join its node's (Kiln keeps them on nodes, meshes and materials).
  const mergeProperties = (p: UsdPrim, node: InterchangeNode, index: number) => {
    const extras = p.path === nodePrim.get(index) ? undefined : propertiesOf(p, p.type === "Camera" ? "camera" : "light");
    if (extras) node.extras = { ...extras, ...node.extras };
  };
  const attachLight = (p: UsdPrim, node: InterchangeNode) => {
    if (p.type !== "DistantLight" && p.type !== "SphereLight") return warn(`usd: ${p.type} "${nameOf(p)}" dropped`);
    const cone = input(p, "shaping:cone:angle")?.value;
    const type = p.type === "DistantLight" ? "directional" : typeof cone === "number" && cone < 180 ? "spot" : "point";
    const c = vec(input(p, "color")?.value) ?? [1, 1, 1];
    node.light = { type, color: [c[0], c[1], c[2]], intensity: num(input(p, "intensity")?.value, 1) * 2 ** num(input(p, "exposure")?.value, 0) };
    const range = (p.metadata.customData as UsdDict | undefined)?.kilnRange;
    if (typeof range === "number") node.light.range = range * mpu;
    if (type === "spot") node.light.spotAngleDeg = cone as number;
    if (type !== "directional" && num(input(p, "radius")?.value, 0.5) > 0 && input(p, "treatAsPoint")?.value !== 1) warn(`usd: light "${nameOf(p)}": sphere radius dropped (read as a point)`);
  };
  const attachCamera = (p: UsdPrim, node: InterchangeNode) => {
    if (String(p.properties.get("projection")?.value ?? "perspective") !== "perspective") return warn(`usd: orthographic camera "${nameOf(p)}" dropped`);
    const va = num(p.properties.get("verticalAperture")?.value, 15.2908);
    const fl = num(p.properties.get("focalLength")?.value, 50);
    const clip = vec(p.properties.get("clippingRange")?.value) ?? [1, 1e6];
    node.camera = { fovYDeg: (2 * Math.atan(va / (2 * fl)) * 180) / Math.PI, near: clip[0] * mpu, far: clip[1] * mpu };
  };
  const attach = (p: UsdPrim, node: InterchangeNode, index: number) => {
    if (p.type === "Mesh") return attachMesh(p, node, index);
    mergeProperties(p, node, index);
    return p.type === "Camera" ? attachCamera(p, node) : attachLight(p, node);
  };
  const kindOf = (p: UsdPrim) => (p.type === "Mesh" ? "mesh" : p.type === "Camera" ? "camera" : "light");

  const visit = (p: UsdPrim, parent: number | null) => {
    if (p.specifier !== "def") return warn(`usd: ${p.specifier} prim ${p.path} ignored`);
    if (p.type === "GeomSubset") return warn(`usd: face subset "${nameOf(p)}" outside a mesh dropped`);
    if (SKIPPED_TYPES.has(p.type)) return;
    for (const arc of ["references", "payload", "inherits", "specializes", "variantSets"]) if (arc in p.metadata) warn(`usd: prim "${nameOf(p)}": ${arc} not followed`);
    if (p.type === "Scope") return p.children.forEach((c) => visit(c, parent)); // grouping only, no transform
    const ops = (p.properties.get("xformOpOrder")?.value as string[] | undefined) ?? [];
    // An untransformed Skeleton's joints hang below the parent; a transformed one is a node of its own.
    if (p.type === "Skeleton" && ops.length === 0) return skel.readSkeleton(p, parent, parent === null ? rootTurn : null);
    const attachable = p.type === "Mesh" || p.type === "Camera" || LIGHT_TYPES.has(p.type);
    const parentNode = parent === null ? undefined : scene.nodes[parent];
    // An untransformed leaf mesh/light/camera under a node is that node's attachment (our layout, Blender's too).
    // A mesh's GeomSubsets and BlendShapes are part of the mesh.
    const leaf = p.children.every((c) => p.type === "Mesh" && MESH_PARTS.has(c.type));
    if (attachable && parentNode && ops.length === 0 && leaf && parentNode[kindOf(p)] === undefined) return attach(p, parentNode, parent!);
    if (!attachable && p.type !== "Xform" && p.type !== "" && p.type !== "SkelRoot" && p.type !== "Skeleton") warn(`usd: ${p.type} prim "${nameOf(p)}" read as an empty node`);
    const m = new Matrix4();
    const animated: { op: string; prop: UsdProperty }[] = [];
    for (const op of ops) {
      if (op === "!resetXformStack!") warn(`usd: prim "${nameOf(p)}": resetXformStack ignored`);
      const inverse = op.startsWith("!invert!");
      const prop = p.properties.get(inverse ? op.slice(8) : op);
      const samples = prop?.timeSamples;
      const om = prop && opMatrix(op.replace("!invert!", ""), prop.value ?? samples?.values().next().value ?? null);
      if (!om) {
        if (op !== "!resetXformStack!") warn(`usd: prim "${nameOf(p)}": transform op ${op} ignored`);
        continue;
      }
      m.multiply(inverse ? om.invert() : om);
      if (samples) animated.push({ op, prop: prop! });
    }
    for (const e of [12, 13, 14]) m.elements[e] *= mpu;
    if (parent === null && rootTurn) m.premultiply(rootTurn);
    const node: InterchangeNode = { name: nameOf(p), parent, ...decomposeTrs(m) };
    const extras = propertiesOf(p, "node");
    if (extras) node.extras = extras;
    const self = scene.nodes.push(node) - 1;
    nodePrim.set(self, p.path);
    if (attachable) attach(p, node, self);
    readAnimation(self, p, ops, animated, tcps, mpu, parent === null ? rootTurn : null, warn, scene);
    if (p.type === "Skeleton") return skel.readSkeleton(p, self, null);
    p.children.forEach((c) => (p.type !== "Mesh" || !MESH_PARTS.has(c.type) ? visit(c, self) : undefined));
  };
  // Our files (and many others) wrap everything in one untransformed root prim marked kilnSceneRoot.
  const top = layer.prims.length === 1 && (layer.prims[0].metadata.customData as UsdDict | undefined)?.kilnSceneRoot ? layer.prims[0].children : layer.prims;
  top.forEach((p) => visit(p, null));
  skel.finish();
  return { scene, warnings };
}

/** Time-sampled translate/orient/scale become keyframes; animation of any other op stack is dropped. */
function readAnimation(node: number, p: UsdPrim, ops: string[], animated: { op: string; prop: UsdProperty }[], tcps: number, mpu: number, rootTurn: Matrix4 | null, warn: (m: string) => void, scene: InterchangeScene): void {
  if (!animated.length) return;
  const plain = ops.length <= 3 && ops.every((op, k) => op === `xformOp:${TRS_OPS.filter((o) => ops.includes(`xformOp:${o}`))[k]}`);
  if (!plain || rootTurn) return warn(`usd: animation of prim "${p.name}" dropped (only translate/orient/scale stacks are read)`);
  const groups = new Map<string, InterchangeAnimation>();
  for (const { op, prop } of animated) {
    const codes = [...prop.timeSamples!.keys()].sort((a, b) => a - b);
    const key = codes.join(",");
    let a = groups.get(key);
    if (!a) groups.set(key, (a = { node, times: codes.map((c) => c / tcps) }));
    const values = codes.map((c) => prop.timeSamples!.get(c) as Vec);
    if (op === "xformOp:translate") a.translations = values.map((v) => [v[0] * mpu, v[1] * mpu, v[2] * mpu]);
    if (op === "xformOp:orient") a.rotations = values.map((v) => [v[1], v[2], v[3], v[0]]);
    if (op === "xformOp:scale") a.scales = values.map((v) => [v[0], v[1], v[2]]);
  }
  scene.animations.push(...groups.values());
}
