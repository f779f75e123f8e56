/**
 * FBX binary (7.4) writer: builds a three.js scene from the interchange model and serialises it
 * with @comfyorg/fbx-exporter-three (meshes, Phong-style materials, Null/Mesh/Light/Camera
 * models, TRS animation curves), except for the geometry arrays, which fbx-geometry.ts writes
 * into the exporter's node tree. The reader lives in fbx-read.ts.
 *
 * What the writer adds on top of the exporter, and why:
 * - UnitScaleFactor 100 (metres), see FBX_UNIT_SCALE.
 * - FBX camera/light axis conventions (CAMERA_FIX/LIGHT_FIX), so DCC tools aim them correctly.
 * - Track names use object UUIDs, because names with '.', '/', ':' or '[' break three's track parser.
 * - UV sets, vertex colours and material slots in the geometry (fbx-layers.ts), embedded textures
 *   (fbx-textures.ts), custom properties (fbx-properties.ts), skins, morph targets and weight keys
 *   (fbx-deformers.ts; joints are written as LimbNode models), on the exporter's node tree.
 */
import {
  AnimationClip,
  Bone,
  BufferGeometry,
  Color,
  DirectionalLight,
  Float32BufferAttribute,
  Group,
  Mesh,
  MeshStandardMaterial,
  Object3D,
  PerspectiveCamera,
  PointLight,
  PropertyBinding,
  QuaternionKeyframeTrack,
  Scene,
  SpotLight,
  Uint32BufferAttribute,
  VectorKeyframeTrack,
  type Light,
  type Quaternion,
} from "three";
import { FBXExporter } from "@comfyorg/fbx-exporter-three";
import { child, childrenNamed, readFbxBinary, stringProperty, text, writeFbxBinary, type FbxDocument, type FbxNode } from "./fbx-binary";
import { numbers, setGeometry } from "./fbx-geometry";
import { writeTextures } from "./fbx-textures";
import { writeUserProperties } from "./fbx-properties";
import { animationLayer, markMeshHolder, writeBlendShapes, writeSkin, writeWeightCurves, type FbxTarget } from "./fbx-deformers";
import { CAMERA_FIX, FBX_EMPTY_SLOT, FBX_FILM_HEIGHT_MM, FBX_UNIT_SCALE, LIGHT_FIX, captureWarnings, refixKey, refixMatrix } from "./fbx-conventions";
import {
  localMatrix,
  meaninglessLightFieldWarnings,
  worldMatrices,
  uniqueNames,
  unusedMeshWarnings,
  validateScene,
  type EncodeResult,
  type InterchangeLight,
  type InterchangeScene,
} from "./interchange";

/**
 * Delimits the tag that material and model names carry through the exporter (see finishFile):
 * `<TAG><kind><index><TAG>name`, kind "m" (material), "e" (empty slot) or "n" (node).
 */
const TAG = "\u0002";
const tagged = (kind: "m" | "e" | "n" | "h", index: number | "", name: string) => `${TAG}${kind}${index}${TAG}${name.replaceAll(TAG, "")}`;

/** Far planes beyond this are written as this: FBX has no infinite far plane. */
const MAX_FAR = 1e9;

function makeLight(l: InterchangeLight): Light {
  const color = new Color().setRGB(...l.color); // raw linear values, as Blender writes FBX colours
  const light =
    l.type === "directional"
      ? new DirectionalLight(color, l.intensity)
      : l.type === "spot"
        ? // FBX OuterAngle is the full cone (Blender, Maya); three's angle, which the exporter copies, is half of it.
          new SpotLight(color, l.intensity, l.range ?? 0, ((l.spotAngleDeg ?? 45) * Math.PI) / 90, 0)
        : new PointLight(color, l.intensity, l.range ?? 0);
  // The model's rotation carries the direction. A target would make the exporter add a LookAt
  // constraint to an extra root model, which DCC tools then obey instead of the rotation.
  (light as { target?: Object3D | null }).target = null;
  return light;
}

/**
 * Gives a track double-precision values. three stores track values as float32, and the exporter
 * turns each quaternion key into FBX's XYZ Euler angles with an asin: at a 90° yaw (gimbal for
 * that order) float32 rounding alone moved the angle by 0.015°.
 */
function float64Values<T extends QuaternionKeyframeTrack>(track: T, values: number[]): T {
  track.values = Float64Array.from(values) as unknown as Float32Array;
  return track;
}

/** The part of the exporter's plan (its plugin hook's argument) that holds animation curves. */
interface FbxPlan { animStacks?: { curveNodes: { attrName: string; curves: { axis: string; values: Float32Array; defaultValue: number }[] }[] }[] }

/**
 * Exporter plugin: makes each rotation curve's Euler keys continuous. The exporter decomposes each
 * key on its own (middle angle in ±90°), so a turn through 90° of yaw flips X and Z by 180°
 * between two keys: the file then interpolates through wild orientations, and three's FBXLoader
 * (which the reader uses) re-samples such spans and loses the key after them. Each key takes
 * whichever of its two equivalent triples, (x, y, z) or (x + 180, 180 - y, z + 180), shifted by
 * whole turns, lies closest to the key before (Blender's exporter does the same).
 */
function compatibleEulerCurves(plan: unknown): void {
  for (const stack of (plan as FbxPlan).animStacks ?? [])
    for (const node of stack.curveNodes) {
      if (node.attrName !== "R") continue;
      const [x, y, z] = ["X", "Y", "Z"].map((a) => node.curves.find((c) => c.axis === a)!.values);
      for (let k = 1; k < x.length; k++) {
        const prev = [x[k - 1], y[k - 1], z[k - 1]];
        const fit = (t: number[]) => t.map((v, i) => v - 360 * Math.round((v - prev[i]) / 360));
        const a = fit([x[k], y[k], z[k]]), b = fit([x[k] + 180, 180 - y[k], z[k] + 180]);
        const dist = (t: number[]) => t.reduce((n, v, i) => n + Math.abs(v - prev[i]), 0);
        [x[k], y[k], z[k]] = dist(b) < dist(a) ? b : a;
      }
    }
}

/** Blender's look for an empty slot: grey 0.8 (linear), roughness 0.5. */
function emptySlotMaterial(name: string): MeshStandardMaterial {
  const m = new MeshStandardMaterial({ name, roughness: 0.5, metalness: 0 });
  m.color.setRGB(0.8, 0.8, 0.8);
  return m;
}

/** Writes `<baseName>.fbx` (binary FBX 7.4, metres, Y up). */
export async function encodeFbx(scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  validateScene(scene);
  const warnings = [...unusedMeshWarnings(scene, "fbx"), ...meaninglessLightFieldWarnings(scene, "fbx")];
  const used = new Set(scene.nodes.flatMap((n) => [n.material, ...(n.materials ?? [])]));
  scene.materials.forEach((m, k) => used.has(k) || warnings.push(`fbx: unused material "${m.name}" dropped`));

  // FBXLoader binds animation tracks by sanitised model name, so those must be unique once
  // sanitised; empty names would be replaced by the exporter with the model type.
  const clean = scene.nodes.map((n, i) => n.name.replace(/\0/g, "") || `node_${i}`);
  const sanitized = clean.map((c) => PropertyBinding.sanitizeNodeName(c));
  const unique = scene.animations.length ? uniqueNames(sanitized) : sanitized;
  const names = clean.map((c, i) => c + unique[i].slice(sanitized[i].length)); // keeps the "_2" suffix, if any
  names.forEach((name, i) => name === scene.nodes[i].name || warnings.push(`fbx: node "${scene.nodes[i].name}" written as "${name}" (FBX names must be non-empty and, for animation, unique)`));

  // One placeholder triangle per geometry, its x coordinate the geometry's number: the exporter
  // writes a Geometry node for it, and finishFile puts the real arrays in (see fbx-geometry.ts
  // for why). A mesh with groups gets one geometry per list of group materials in use: Blender
  // keeps materials on the mesh, so models sharing a geometry would share their slots.
  // A model's slots are its distinct group materials in order of first use (an empty slot, null,
  // counting once), as Blender's glTF importer makes them; each group's triangles carry its slot.
  const geometryMesh: GeometryPlan[] = [];
  const geometryByKey = new Map<string, BufferGeometry>();
  const slotsOf = (n: (typeof scene.nodes)[number]) => {
    const perGroup = (scene.meshes[n.mesh!].groups ?? []).map((_, i) => n.materials?.[i] ?? null);
    const slots = [...new Set(perGroup)];
    // All empty: no slots at all (Blender's glTF importer makes none either); index 0 reads as empty.
    if (slots.length === 1 && slots[0] === null) return { slots: [], groupSlots: perGroup.map(() => 0) };
    return { slots, groupSlots: perGroup.map((m) => slots.indexOf(m)) };
  };
  // Skins and morph weights live on the FBX geometry too: a skinned node gets a geometry of its
  // own (its clusters hold its world matrix), so does a node with weight keys (they drive the
  // geometry's channels), and nodes with their own morph weights one per weights.
  const weightKeyed = new Set(scene.animations.filter((a) => a.weights).map((a) => a.node));
  const geometryFor = (n: (typeof scene.nodes)[number], node: number) => {
    const k = n.mesh!, groups = scene.meshes[k].groups;
    const skinned = n.skin !== undefined && !!scene.meshes[k].joints;
    let key = groups ? `${k}/${groups.map((_, i) => n.materials?.[i] ?? null).join(",")}` : `${k}`;
    if (skinned || (weightKeyed.has(node) && scene.meshes[k].morphTargets?.length)) key += `/node${node}`;
    if (n.morphWeights) key += `/weights${n.morphWeights.join(",")}`;
    let g = geometryByKey.get(key);
    if (!g) {
      const x = geometryMesh.push({ mesh: k, node, skinned, groupSlots: groups && slotsOf(n).groupSlots }) - 1;
      g = new BufferGeometry();
      g.setAttribute("position", new Float32BufferAttribute([x, 0, 0, x, 0, 0, x, 0, 0], 3));
      g.setAttribute("normal", new Float32BufferAttribute([0, 0, 1, 0, 0, 1, 0, 0, 1], 3));
      g.setIndex(new Uint32BufferAttribute([0, 1, 2], 1));
      g.name = scene.meshes[k].name;
      geometryByKey.set(key, g);
    }
    return g;
  };
  // Names carry a tag (the material's index) through the exporter, so finishFile can tell which
  // FBX Material object is which; it restores the names.
  const materials = scene.materials.map((m, k) => {
    const mat = new MeshStandardMaterial({ name: tagged("m", k, m.name), metalness: m.metallic, roughness: m.roughness, opacity: m.color[3], transparent: m.color[3] < 1 });
    mat.color.setRGB(m.color[0], m.color[1], m.color[2]);
    // glTF's emission is emissive × texture; Blender's FBX importer takes EmissiveColor (or the
    // texture) times EmissiveFactor, so no emissive colour must mean factor 0, not a glowing texture.
    if (m.emissive) mat.emissive.setRGB(...m.emissive);
    if (!m.emissive?.some((c) => c > 0)) mat.emissiveIntensity = 0;
    return mat;
  });
  // Material slots are the model's connected materials in order; an empty slot needs an object
  // too: one shared placeholder, which the reader reads as empty again.
  let emptySlot: MeshStandardMaterial | undefined;
  const slotMaterials = (n: (typeof scene.nodes)[number]) =>
    slotsOf(n).slots.map((m) => (m === null ? (emptySlot ??= emptySlotMaterial(tagged("e", "", FBX_EMPTY_SLOT))) : materials[m]));

  // One FBX model per node; the model's attribute is its mesh, else camera, else light. Other
  // attachments move to identity child models (an FBX model holds one attribute).
  const fixes: (Quaternion | null)[] = [];
  // Joints are LimbNode models (three Bones to the exporter), as Blender writes armature bones.
  const joints = new Set(scene.skins?.flatMap((s) => s.joints));
  const holdsItsJoints = new Set(scene.nodes.flatMap((n, i) => {
    if (n.skin === undefined || n.mesh === undefined) return [];
    const below = (j: number) => {
      for (let at = scene.nodes[j].parent, steps = 0; at !== null && steps <= scene.nodes.length; at = scene.nodes[at].parent, steps++) if (at === i) return true;
      return false;
    };
    return scene.skins![n.skin].joints.some(below) ? [i] : [];
  }));
  const extraChildren: { parent: number; obj: Object3D }[] = [];
  const objects = scene.nodes.map((n, i) => {
    let obj: Object3D;
    const extras: [string, Object3D, Quaternion][] = [];
    const camera = () => {
      let far = n.camera!.far;
      if (!Number.isFinite(far) || far > MAX_FAR) {
        warnings.push(`fbx: camera "${n.name}" far plane ${far} written as ${MAX_FAR}`);
        far = MAX_FAR;
      }
      // The exporter multiplies near/far by the unit scale; FBX wants them in file units (metres).
      const cam = new PerspectiveCamera(n.camera!.fovYDeg, 16 / 9, n.camera!.near / FBX_UNIT_SCALE, far / FBX_UNIT_SCALE);
      cam.filmGauge = FBX_FILM_HEIGHT_MM * cam.aspect; // three's film height = gauge / aspect
      return cam;
    };
    if (n.mesh !== undefined) {
      const groups = scene.meshes[n.mesh].groups?.length;
      obj = new Mesh(geometryFor(n, i), groups ? slotMaterials(n) : n.material === undefined ? [] : materials[n.material]);
      if (holdsItsJoints.has(i)) {
        // Blender's FBX importer parents a skinned mesh to its armature: under its own joints'
        // armature that is a cycle and both vanish. So the mesh goes to an identity child model,
        // marked so Kiln's reader gives it back to this node.
        obj.name = tagged("h", i, `${names[i]}_mesh`);
        extraChildren.push({ parent: i, obj });
        warnings.push(`fbx: skinned mesh of node "${n.name}" moved to child node "${names[i]}_mesh" (its joints are below it)`);
        obj = new Group();
      }
      if (n.camera) extras.push(["camera", camera(), CAMERA_FIX]);
      if (n.light) extras.push(["light", makeLight(n.light), LIGHT_FIX]);
    } else if (n.camera) {
      obj = camera();
      if (n.light) extras.push(["light", makeLight(n.light), LIGHT_FIX]);
    } else obj = n.light ? makeLight(n.light) : joints.has(i) ? new Bone() : new Group();
    fixes.push(n.mesh === undefined && n.camera ? CAMERA_FIX : n.mesh === undefined && n.light ? LIGHT_FIX : null);
    obj.name = tagged("n", i, names[i]);
    for (const [kind, child, fix] of extras) {
      child.name = `${names[i]}_${kind}`;
      child.quaternion.copy(fix);
      child.position.set(0, 0, 0);
      extraChildren.push({ parent: i, obj: child });
      warnings.push(`fbx: ${kind} on node "${n.name}" moved to child node "${child.name}" (an FBX model holds one attribute)`);
    }
    return obj;
  });
  const root = new Scene();
  scene.nodes.forEach((n, i) => {
    const m = refixMatrix(localMatrix(n), fixes[i], n.parent === null ? null : fixes[n.parent]);
    m.decompose(objects[i].position, objects[i].quaternion, objects[i].scale);
    (n.parent === null ? root : objects[n.parent]).add(objects[i]);
  });
  for (const { parent, obj } of extraChildren) objects[parent].add(obj);

  // One clip holds every track; another is opened only when two animations drive the same property.
  const clips: { tracks: (VectorKeyframeTrack | QuaternionKeyframeTrack)[]; used: Set<string> }[] = [];
  for (const a of scene.animations) {
    const node = scene.nodes[a.node];
    const own = fixes[a.node], parent = node.parent === null ? null : fixes[node.parent];
    const keys = a.times.map((_, k) => refixKey({ t: a.translations?.[k], r: a.rotations?.[k], s: a.scales?.[k] }, own, parent));
    const uuid = objects[a.node].uuid;
    const tracks = [
      a.translations && new VectorKeyframeTrack(`${uuid}.position`, a.times, keys.flatMap((k) => k.t!)),
      a.rotations && float64Values(new QuaternionKeyframeTrack(`${uuid}.quaternion`, a.times, []), keys.flatMap((k) => k.r!)),
      a.scales && new VectorKeyframeTrack(`${uuid}.scale`, a.times, keys.flatMap((k) => k.s!)),
    ].filter((t): t is VectorKeyframeTrack | QuaternionKeyframeTrack => !!t);
    if (!tracks.length) continue; // weight keys only: finishFile writes them (fbx-deformers.ts)
    let clip = clips.find((c) => tracks.every((t) => !c.used.has(t.name)));
    if (!clip) clips.push((clip = { tracks: [], used: new Set() }));
    for (const t of tracks) (clip.tracks.push(t), clip.used.add(t.name));
  }
  const animations = clips.map((c, k) => new AnimationClip(k ? `Animation_${k + 1}` : "Animation", -1, c.tracks));

  // Axes "Y|-Z" declare +X right, +Y up, +Z toward the viewer: exactly glTF's frame (Blender's own
  // FBX export default). The exporter's "Z" forward would declare -X right and mirror-turn imports.
  const options = { version: 7400, axisUp: "Y", axisForward: "-Z", unitScale: FBX_UNIT_SCALE, animations, embedTextures: false } as const;
  const bytes = captureWarnings(warnings, "fbx: exporter: ", () => new FBXExporter().register(compatibleEulerCurves).parseSync(root, options));
  return { files: [{ name: `${baseName}.fbx`, bytes: finishFile(bytes, scene, geometryMesh, warnings) }], warnings };
}

/**
 * The exporter's file with each placeholder Geometry node given its mesh's real arrays, material
 * names untagged, and the materials' textures added.
 */
function finishFile(bytes: Uint8Array, scene: InterchangeScene, geometryMesh: GeometryPlan[], warnings: string[]): Uint8Array {
  const doc = readFbxBinary(bytes);
  const objects = doc.nodes.find((n) => n.name === "Objects");
  // Untag every name (models and materials, and whatever the exporter named after them).
  const ids = { m: new Map<number, bigint[]>(), n: new Map<number, bigint[]>(), e: new Map<number, bigint[]>(), h: new Map<number, bigint[]>() };
  const untag = (n: FbxNode) => {
    n.properties.forEach((p, k) => {
      if (p.type !== "S") return;
      const s = text(p);
      const at = s.indexOf(TAG), end = at < 0 ? -1 : s.indexOf(TAG, at + 1);
      if (end < 0) return;
      n.properties[k] = stringProperty(s.slice(0, at) + s.slice(end + 1));
      const kind = s[at + 1] as keyof typeof ids, index = Number(s.slice(at + 2, end)), id = n.properties[0];
      if (k === 1 && n.name === ({ m: "Material", e: "Material", n: "Model", h: "Model" } as const)[kind] && id?.type === "L") ids[kind].set(index, [...(ids[kind].get(index) ?? []), id.value]);
    });
    n.children.forEach(untag);
  };
  doc.nodes.forEach(untag);
  const materialIds = ids.m;
  if (childrenNamed(objects, "Material").length !== [...ids.m.values(), ...ids.e.values()].flat().length) throw new Error("fbx: exporter wrote a material Kiln did not tag");
  // Custom properties as user properties, on the models, materials and (below) geometries.
  const byId = new Map(objects?.children.map((n) => [n.properties[0]?.value, n]));
  for (const [kind, list] of [["n", scene.nodes], ["m", scene.materials]] as const)
    for (const [index, found] of ids[kind]) for (const id of found) writeUserProperties(byId.get(id)!, list[index].extras);
  for (const [, found] of ids.h) for (const id of found) markMeshHolder(byId.get(id)!);
  writeTextures(doc, scene, materialIds, warnings);
  const filled = new Set<number>();
  const deformed: { plan: GeometryPlan; id: bigint }[] = [];
  for (const geometry of childrenNamed(doc.nodes.find((n) => n.name === "Objects"), "Geometry")) {
    if (text(geometry.properties[2]) !== "Mesh") continue;
    const x = numbers(child(geometry, "Vertices"))?.[0];
    if (x === undefined || geometryMesh[x] === undefined || filled.has(x)) throw new Error("fbx: exporter wrote a geometry that is not a placeholder");
    const mesh = scene.meshes[geometryMesh[x].mesh];
    setGeometry(geometry, mesh, geometryMesh[x].groupSlots);
    writeUserProperties(geometry, mesh.extras);
    filled.add(x);
    deformed.push({ plan: geometryMesh[x], id: (geometry.properties[0] as { value: bigint }).value });
  }
  if (filled.size !== geometryMesh.length) throw new Error(`fbx: exporter wrote ${filled.size} of ${geometryMesh.length} geometries`);
  writeDeformers(doc, scene, deformed, ids.n, ids.h);
  return writeFbxBinary(doc);
}

/** A geometry the writer asks the exporter for: which mesh, for which (first) node, its slots. */
interface GeometryPlan {
  mesh: number;
  node: number;
  /** The node's skin goes on this geometry. */
  skinned: boolean;
  groupSlots?: number[];
}

/** Adds each geometry's skin (clusters linked to the joints' models) and morph targets (fbx-deformers.ts). */
function writeDeformers(doc: FbxDocument, scene: InterchangeScene, geometries: { plan: GeometryPlan; id: bigint }[], modelIds: Map<number, bigint[]>, meshModelIds: Map<number, bigint[]>): void {
  const objects = doc.nodes.find((n) => n.name === "Objects")!, connections = doc.nodes.find((n) => n.name === "Connections")!;
  let next = 0n;
  for (const n of objects.children) if (n.properties[0]?.type === "L" && n.properties[0].value >= next) next = n.properties[0].value + 1n;
  const target: FbxTarget = { objects, connections, newId: () => next++ };
  const worlds = worldMatrices(scene);
  const modelOf = (node: number) => modelIds.get(node)?.[0] ?? (() => { throw new Error(`fbx: exporter wrote no model for node ${node}`); })();
  const channelsOf = new Map<number, bigint[]>();
  for (const { plan, id } of geometries) {
    const mesh = scene.meshes[plan.mesh], node = scene.nodes[plan.node];
    if (mesh.morphTargets?.length) channelsOf.set(plan.node, writeBlendShapes(target, id, mesh.name, mesh.morphTargets, node.morphWeights ?? mesh.morphWeights ?? []));
    if (plan.skinned) {
      const skin = scene.skins![node.skin!];
      writeSkin(target, id, mesh, { name: skin.name, inverseBindMatrices: skin.inverseBindMatrices, joints: skin.joints.map((j) => ({ model: modelOf(j), name: scene.nodes[j].name })) }, { model: meshModelIds.get(plan.node)?.[0] ?? modelOf(plan.node), world: worlds[plan.node] });
    }
  }
  // Weight keys: DeformPercent curves of the node's own geometry's channels, in the file's layer.
  const keyed = scene.animations.filter((a) => a.weights && channelsOf.has(a.node));
  if (!keyed.length) return;
  const times = keyed.flatMap((a) => a.times);
  const layer = animationLayer(target, Math.min(...times), Math.max(...times));
  for (const a of keyed) writeWeightCurves(target, layer, channelsOf.get(a.node)!, a.times, a.weights!);
}
