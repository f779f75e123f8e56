/**
 * Skins and morph targets as FBX deformers, written and read on the node tree (fbx-binary.ts), the
 * way Blender's io_scene_fbx writes and reads them:
 * - Skin: Deformer "Skin" → Geometry; one SubDeformer "Cluster" per joint → Skin, the joint's
 *   Model → Cluster; Indexes/Weights per cluster; TransformLink = the joint's world matrix at bind,
 *   Transform = TransformLink⁻¹ · the mesh's world matrix ("in bone space", as Blender writes and
 *   reads it), which is exactly glTF's inverse bind matrix. A BindPose lists the same matrices.
 * - Morph targets: Deformer "BlendShape" → Geometry; one SubDeformer "BlendShapeChannel" per
 *   target → BlendShape (DeformPercent = weight × 100); a Geometry "Shape" per target → channel,
 *   with the offsets of the vertices it moves (Indexes, Vertices; Normals as offsets too).
 * Kiln's FBX is already in glTF's axes and metres, and a cluster's Transform maps mesh space to
 * bone space, so no axis or unit conversion touches these matrices (a root's unit scale cancels).
 */
import { Matrix4 } from "three";
import { child, childrenNamed, stringProperty, text, type FbxNode, type FbxProperty } from "./fbx-binary";
import { numbers, objectName } from "./fbx-geometry";
import type { InterchangeMesh, InterchangeMorphTarget } from "./interchange";
import { LIMITS, budget } from "./limits";

const node = (name: string, properties: FbxProperty[], children: FbxNode[] = []): FbxNode => ({ name, properties, children });
const int = (value: number): FbxProperty => ({ type: "I", value });
const id = (value: bigint): FbxProperty => ({ type: "L", value });
const doubles = (name: string, v: ArrayLike<number>) => node(name, [{ type: "d", value: Float64Array.from(v) }]);
const objectLabel = (name: string, cls: string) => stringProperty(`${name.replaceAll("\0", "")}\0\u0001${cls}`);

/** Where new objects go: the Objects and Connections nodes, and a source of fresh ids. */
export interface FbxTarget {
  objects: FbxNode;
  connections: FbxNode;
  newId: () => bigint;
}

const connect = (t: FbxTarget, from: bigint, to: bigint) => t.connections.children.push(node("C", [stringProperty("OO"), id(from), id(to)]));

/** Writes the Skin deformer of one geometry (`mesh` with its joints/weights), its clusters and a BindPose. */
export function writeSkin(
  t: FbxTarget,
  geometry: bigint,
  mesh: Pick<InterchangeMesh, "name" | "joints" | "weights">,
  skin: { name: string; inverseBindMatrices: ArrayLike<number>; joints: { model: bigint; name: string }[] },
  mesh_: { model: bigint; world: Matrix4 },
): void {
  const skinId = t.newId();
  t.objects.children.push(node("Deformer", [id(skinId), objectLabel(skin.name, "Deformer"), stringProperty("Skin")], [node("Version", [int(101)]), node("Link_DeformAcuracy", [{ type: "D", value: 50 }])]));
  connect(t, skinId, geometry);
  const pose: FbxNode[] = [node("PoseNode", [], [node("Node", [id(mesh_.model)]), doubles("Matrix", mesh_.world.elements)])];
  skin.joints.forEach((joint, j) => {
    const indexes: number[] = [], weights: number[] = [];
    const vertexCount = (mesh.joints?.length ?? 0) / 4;
    for (let v = 0; v < vertexCount; v++) {
      let w = 0;
      for (let k = 0; k < 4; k++) if (mesh.joints![v * 4 + k] === j) w += mesh.weights![v * 4 + k];
      if (w > 0) (indexes.push(v), weights.push(w));
    }
    const inverseBind = new Matrix4().fromArray(Array.from(skin.inverseBindMatrices).slice(j * 16, j * 16 + 16));
    // glTF's inverse bind matrix maps mesh space to bone space: the bone's world at bind is mesh world · IBM⁻¹.
    const link = mesh_.world.clone().multiply(inverseBind.clone().invert());
    const clusterId = t.newId();
    t.objects.children.push(node("Deformer", [id(clusterId), objectLabel(joint.name, "SubDeformer"), stringProperty("Cluster")], [
      node("Version", [int(100)]),
      node("UserData", [stringProperty(""), stringProperty("")]),
      node("Indexes", [{ type: "i", value: Int32Array.from(indexes) }]),
      doubles("Weights", weights),
      doubles("Transform", inverseBind.elements),
      doubles("TransformLink", link.elements),
      doubles("TransformAssociateModel", mesh_.world.elements),
    ]));
    connect(t, clusterId, skinId);
    connect(t, joint.model, clusterId);
    pose.push(node("PoseNode", [], [node("Node", [id(joint.model)]), doubles("Matrix", link.elements)]));
  });
  t.objects.children.push(node("Pose", [id(t.newId()), objectLabel(mesh.name, "Pose"), stringProperty("BindPose")], [
    node("Type", [stringProperty("BindPose")]),
    node("Version", [int(100)]),
    node("NbPoseNodes", [int(pose.length)]),
    ...pose,
  ]));
}

/** Writes the BlendShape deformer of one geometry: a channel (weight `weights[k]`) and a Shape per target. Returns the channel ids. */
export function writeBlendShapes(t: FbxTarget, geometry: bigint, meshName: string, targets: InterchangeMorphTarget[], weights: number[]): bigint[] {
  const blendId = t.newId();
  t.objects.children.push(node("Deformer", [id(blendId), objectLabel(meshName, "Deformer"), stringProperty("BlendShape")], [node("Version", [int(100)])]));
  connect(t, blendId, geometry);
  return targets.map((target, k) => {
    // Only the vertices the target moves, as Blender writes them.
    const indexes: number[] = [];
    for (let v = 0; v < target.positions.length / 3; v++)
      for (let c = 0; c < 3; c++)
        if (target.positions[v * 3 + c] !== 0 || (target.normals && target.normals[v * 3 + c] !== 0)) {
          indexes.push(v);
          break;
        }
    const pick = (a: Float32Array) => indexes.flatMap((v) => [a[v * 3], a[v * 3 + 1], a[v * 3 + 2]]);
    const shapeId = t.newId(), channelId = t.newId();
    t.objects.children.push(node("Geometry", [id(shapeId), objectLabel(target.name, "Geometry"), stringProperty("Shape")], [
      node("Properties70", []),
      node("Version", [int(100)]),
      node("Indexes", [{ type: "i", value: Int32Array.from(indexes) }]),
      doubles("Vertices", pick(target.positions)),
      ...(target.normals ? [doubles("Normals", pick(target.normals))] : []),
    ]));
    t.objects.children.push(node("Deformer", [id(channelId), objectLabel(target.name, "SubDeformer"), stringProperty("BlendShapeChannel")], [
      node("Version", [int(100)]),
      node("DeformPercent", [{ type: "D", value: (weights[k] ?? 0) * 100 }]),
      doubles("FullWeights", indexes.map(() => 100)),
    ]));
    connect(t, shapeId, channelId);
    connect(t, channelId, blendId);
    return channelId;
  });
}

/** What the reader needs of the object graph: objects by id and, per id, what is connected to it (OO) in order. */
export interface FbxGraph {
  objects: Map<number, FbxNode>;
  childrenOf: (id: number) => number[];
}

const kindIs = (n: FbxNode | undefined, name: string, kind: string) => n?.name === name && text(n.properties[2]) === kind;

/** A geometry's skin as read: per cluster the joint's model id and its inverse bind matrix (Transform), plus 4 joints/weights per output vertex. */
export interface ReadSkin {
  name: string;
  jointModels: number[];
  inverseBindMatrices: Float32Array;
  joints: Uint16Array;
  weights: Float32Array;
}

/**
 * Reads the Skin deformer of geometry `g`, if any. `controlPoint` maps output vertices to the
 * geometry's control points (undefined: the same). Keeps the 4 strongest weights per vertex,
 * renormalised (more: a warning). Throws on indices outside the control points, mismatched
 * arrays and non-finite numbers.
 */
export function readSkin(graph: FbxGraph, g: number, meshName: string, controlPointCount: number, outCount: number, controlPoint: Uint32Array | undefined, warn: (m: string) => void): ReadSkin | undefined {
  const skins = graph.childrenOf(g).filter((d) => kindIs(graph.objects.get(d), "Deformer", "Skin"));
  if (!skins.length) return undefined;
  if (skins.length > 1) warn(`fbx: mesh "${meshName}": only the first of ${skins.length} skins kept`);
  const bad = (what: string): never => {
    throw new Error(`fbx: skin of mesh "${meshName}": ${what}`);
  };
  const clusters = graph.childrenOf(skins[0]).filter((c) => kindIs(graph.objects.get(c), "Deformer", "Cluster"));
  budget(clusters.length <= 65535, `fbx: skin of mesh "${meshName}" has ${clusters.length} clusters, more than 65535 joints`);
  const jointModels: number[] = [];
  const inverseBind: number[] = [];
  // The 4 strongest influences per control point, and how many there were.
  const cpJoints = new Uint16Array(controlPointCount * 4), cpWeights = new Float32Array(controlPointCount * 4), count = new Uint32Array(controlPointCount);
  for (const c of clusters) {
    const cluster = graph.objects.get(c)!;
    const model = graph.childrenOf(c).find((m) => graph.objects.get(m)?.name === "Model");
    if (model === undefined) {
      warn(`fbx: mesh "${meshName}": cluster "${objectName(cluster)}" has no joint model; dropped`);
      continue;
    }
    const transform = numbers(child(cluster, "Transform")) ?? Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    if (transform.length !== 16 || !Array.from(transform).every(Number.isFinite)) bad(`cluster "${objectName(cluster)}" Transform is not 16 finite numbers`);
    const indexes = numbers(child(cluster, "Indexes")) ?? new Int32Array(0), weights = numbers(child(cluster, "Weights")) ?? new Float64Array(0);
    if (indexes.length !== weights.length) bad(`cluster "${objectName(cluster)}" has ${indexes.length} indexes and ${weights.length} weights`);
    const j = jointModels.push(model) - 1;
    inverseBind.push(...transform);
    for (let k = 0; k < indexes.length; k++) {
      const v = indexes[k], w = weights[k];
      if (!Number.isInteger(v) || v < 0 || v >= controlPointCount) bad(`cluster "${objectName(cluster)}" refers to vertex ${v} of ${controlPointCount}`);
      if (!Number.isFinite(w)) bad(`cluster "${objectName(cluster)}" has a weight that is not finite`);
      if (w <= 0) continue;
      const n = count[v]++;
      if (n < 4) (cpJoints[v * 4 + n] = j, (cpWeights[v * 4 + n] = w));
      else {
        let min = 0;
        for (let s = 1; s < 4; s++) if (cpWeights[v * 4 + s] < cpWeights[v * 4 + min]) min = s;
        if (w > cpWeights[v * 4 + min]) (cpJoints[v * 4 + min] = j, (cpWeights[v * 4 + min] = w));
      }
    }
  }
  let over = 0;
  for (let v = 0; v < controlPointCount; v++) {
    if (count[v] > 4) over++;
    let sum = 0;
    for (let s = 0; s < 4; s++) sum += cpWeights[v * 4 + s];
    if (sum > 0) for (let s = 0; s < 4; s++) cpWeights[v * 4 + s] /= sum;
  }
  if (over) warn(`fbx: mesh "${meshName}": ${over} vertices have more than 4 joint weights; the 4 strongest kept, renormalised`);
  const joints = new Uint16Array(outCount * 4), weights = new Float32Array(outCount * 4);
  for (let o = 0; o < outCount; o++) {
    const v = controlPoint ? controlPoint[o] : o;
    joints.set(cpJoints.subarray(v * 4, v * 4 + 4), o * 4);
    weights.set(cpWeights.subarray(v * 4, v * 4 + 4), o * 4);
  }
  return { name: objectName(graph.objects.get(skins[0])!), jointModels, inverseBindMatrices: Float32Array.from(inverseBind), joints, weights };
}

/** Reads the BlendShape deformers of geometry `g`: one target per channel (its first Shape), default weights from DeformPercent, and each channel's id. */
export function readBlendShapes(graph: FbxGraph, g: number, meshName: string, controlPointCount: number, outCount: number, controlPoint: Uint32Array | undefined, warn: (m: string) => void) {
  const bad = (what: string): never => {
    throw new Error(`fbx: morph target of mesh "${meshName}": ${what}`);
  };
  const targets: InterchangeMorphTarget[] = [], weights: number[] = [], channels: number[] = [];
  for (const b of graph.childrenOf(g).filter((d) => kindIs(graph.objects.get(d), "Deformer", "BlendShape")))
    for (const c of graph.childrenOf(b).filter((d) => kindIs(graph.objects.get(d), "Deformer", "BlendShapeChannel"))) {
      const channel = graph.objects.get(c)!;
      const shapes = graph.childrenOf(c).filter((s) => kindIs(graph.objects.get(s), "Geometry", "Shape"));
      if (!shapes.length) continue;
      if (shapes.length > 1) warn(`fbx: mesh "${meshName}": in-between shapes of "${objectName(channel)}" dropped`);
      // A target costs a full vertex array: bound them by what the file may place in all.
      budget((targets.length + 1) * outCount <= LIMITS.vertices, `fbx: mesh "${meshName}": morph targets × vertices exceed ${LIMITS.vertices}`);
      const shape = graph.objects.get(shapes[0])!;
      const indexes = numbers(child(shape, "Indexes")) ?? new Int32Array(0), offsets = numbers(child(shape, "Vertices")) ?? new Float64Array(0);
      const normalOffsets = numbers(child(shape, "Normals"));
      if (offsets.length !== indexes.length * 3) bad(`"${objectName(shape)}" has ${indexes.length} indexes and ${offsets.length} coordinates`);
      const withNormals = normalOffsets?.length === offsets.length;
      const cp = new Float32Array(controlPointCount * 3), cpNormals = withNormals ? new Float32Array(controlPointCount * 3) : undefined;
      for (let k = 0; k < indexes.length; k++) {
        const v = indexes[k];
        if (!Number.isInteger(v) || v < 0 || v >= controlPointCount) bad(`"${objectName(shape)}" refers to vertex ${v} of ${controlPointCount}`);
        for (let a = 0; a < 3; a++) {
          const d = offsets[k * 3 + a], n = cpNormals ? normalOffsets![k * 3 + a] : 0;
          if (!Number.isFinite(d) || !Number.isFinite(n)) bad(`"${objectName(shape)}" has offsets that are not finite`);
          cp[v * 3 + a] = d;
          if (cpNormals) cpNormals[v * 3 + a] = n;
        }
      }
      const spread = (a: Float32Array) => {
        if (!controlPoint) return a;
        const out = new Float32Array(outCount * 3);
        for (let o = 0; o < outCount; o++) out.set(a.subarray(controlPoint[o] * 3, controlPoint[o] * 3 + 3), o * 3);
        return out;
      };
      targets.push({ name: objectName(shape), positions: spread(cp), ...(cpNormals ? { normals: spread(cpNormals) } : {}) });
      const weight = Number(child(channel, "DeformPercent")?.properties[0]?.value ?? 0) / 100; // the FBX SDK's default is 0
      if (!Number.isFinite(weight)) bad(`"${objectName(channel)}" DeformPercent is not finite`);
      weights.push(weight);
      channels.push(c);
    }
  return targets.length ? { targets, weights, channels } : undefined;
}

/** The deformer objects the reader takes out before FBXLoader sees the file (it would misread them over placeholder geometry). */
export function isDeformerObject(n: FbxNode): boolean {
  return n.name === "Deformer" || (n.name === "Geometry" && text(n.properties[2]) === "Shape") || (n.name === "Pose" && text(n.properties[2]) === "BindPose");
}

/** FBX time unit: ticks per second. */
const KTIME_PER_SECOND = 46_186_158_000;
/** Key flags Blender and the exporter write: linear interpolation (with auto tangents, unused by linear keys). */
const KEY_ATTR_FLAGS = 0x04 | 0x100 | 0x2000 | 0x4000;

/** The first AnimationLayer of the file, or a new stack and layer (the exporter writes none without TRS tracks). */
export function animationLayer(t: FbxTarget, start: number, stop: number): bigint {
  const layer = t.objects.children.find((n) => n.name === "AnimationLayer");
  if (layer?.properties[0]?.type === "L") return layer.properties[0].value;
  const time = (name: string, s: number): FbxNode => node("P", [stringProperty(name), stringProperty("KTime"), stringProperty("Time"), stringProperty(""), id(BigInt(Math.round(s * KTIME_PER_SECOND)))]);
  const stackId = t.newId(), layerId = t.newId();
  t.objects.children.push(node("AnimationStack", [id(stackId), objectLabel("Animation", "AnimStack"), stringProperty("")], [
    node("Properties70", [], [time("LocalStart", start), time("LocalStop", stop), time("ReferenceStart", start), time("ReferenceStop", stop)]),
  ]));
  t.objects.children.push(node("AnimationLayer", [id(layerId), objectLabel("BaseLayer", "AnimLayer"), stringProperty("")]));
  connect(t, layerId, stackId);
  return layerId;
}

/** Writes one DeformPercent curve per channel (weights × 100 at `times`), in `layer`, as Blender animates shape keys. */
export function writeWeightCurves(t: FbxTarget, layer: bigint, channels: bigint[], times: number[], weights: number[][]): void {
  const keyTimes = BigInt64Array.from(times, (s) => BigInt(Math.round(s * KTIME_PER_SECOND)));
  channels.forEach((channel, k) => {
    const values = Float32Array.from(weights, (w) => w[k] * 100);
    const curveNode = t.newId(), curve = t.newId();
    t.objects.children.push(node("AnimationCurveNode", [id(curveNode), objectLabel("DeformPercent", "AnimCurveNode"), stringProperty("")], [
      node("Properties70", [], [node("P", [stringProperty("d|DeformPercent"), stringProperty("Number"), stringProperty(""), stringProperty("A"), { type: "D", value: values[0] ?? 0 }])]),
    ]));
    t.objects.children.push(node("AnimationCurve", [id(curve), objectLabel("", "AnimCurve"), stringProperty("")], [
      node("Default", [{ type: "D", value: values[0] ?? 0 }]),
      node("KeyVer", [int(4008)]),
      node("KeyTime", [{ type: "l", value: keyTimes }]),
      node("KeyValueFloat", [{ type: "f", value: values }]),
      node("KeyAttrFlags", [{ type: "i", value: Int32Array.of(KEY_ATTR_FLAGS) }]),
      node("KeyAttrDataFloat", [{ type: "f", value: Float32Array.of(0, 0, 0, 0) }]),
      node("KeyAttrRefCount", [{ type: "i", value: Int32Array.of(times.length) }]),
    ]));
    connect(t, curveNode, layer);
    t.connections.children.push(node("C", [stringProperty("OP"), id(curveNode), id(channel), stringProperty("DeformPercent")]));
    t.connections.children.push(node("C", [stringProperty("OP"), id(curve), id(curveNode), stringProperty("d|DeformPercent")]));
  });
}

/**
 * Reads the DeformPercent curves of `channels` (one per morph target, default weights `defaults`)
 * as interchange weight keys: the union of their key times, each curve sampled linearly there
 * (a channel without a curve keeps its default). `curvesOf(channel)` gives the AnimationCurves
 * driving a channel's DeformPercent. Undefined when no channel is animated.
 */
export function readWeightKeys(objects: Map<number, FbxNode>, channels: number[], defaults: number[], curvesOf: (channel: number) => number[], meshName: string, warn: (m: string) => void) {
  const bad = (what: string): never => {
    throw new Error(`fbx: weight animation of mesh "${meshName}": ${what}`);
  };
  const curves = channels.map((c) => {
    const found = curvesOf(c);
    if (found.length > 1) warn(`fbx: mesh "${meshName}": only the first weight curve of a morph target kept`);
    const curve = found.length ? objects.get(found[0]) : undefined;
    if (!curve) return undefined;
    const times = child(curve, "KeyTime")?.properties[0], keyValues = numbers(child(curve, "KeyValueFloat"));
    if (times?.type !== "l" || !keyValues || keyValues.length !== times.value.length) return bad("KeyTime and KeyValueFloat do not match");
    const values: ArrayLike<number> = keyValues;
    budget(values.length <= LIMITS.keyframes, `fbx: mesh "${meshName}": a weight curve has ${values.length} keys, more than ${LIMITS.keyframes}`);
    const seconds = Array.from(times.value as BigInt64Array, (k) => Number(k) / KTIME_PER_SECOND);
    for (let k = 0; k < values.length; k++) if (!Number.isFinite(values[k]) || (k && !(seconds[k] > seconds[k - 1]))) bad("keys are not finite and increasing");
    return { seconds, values: Array.from(values, (v) => v / 100) };
  });
  if (curves.every((c) => !c)) return undefined;
  const times = [...new Set(curves.flatMap((c) => c?.seconds ?? []))].sort((a, b) => a - b);
  budget(times.length <= LIMITS.keyframes, `fbx: mesh "${meshName}": weight animation has ${times.length} keys, more than ${LIMITS.keyframes}`);
  const sample = (c: { seconds: number[]; values: number[] }, s: number) => {
    let k = 0;
    while (k < c.seconds.length - 1 && c.seconds[k + 1] <= s) k++;
    if (s <= c.seconds[0] || k === c.seconds.length - 1) return c.values[s <= c.seconds[0] ? 0 : k];
    const f = (s - c.seconds[k]) / (c.seconds[k + 1] - c.seconds[k]);
    return c.values[k] + f * (c.values[k + 1] - c.values[k]);
  };
  return { times, weights: times.map((s) => curves.map((c, k) => (c ? sample(c, s) : defaults[k]))) };
}

/** Properties70 entry (not a user property) marking the child model that holds its parent node's skinned mesh (see fbx.ts). */
const MESH_HOLDER = "KilnSkinnedMeshOfParent";

export function markMeshHolder(model: FbxNode): void {
  let props = child(model, "Properties70");
  if (!props) model.children.push((props = node("Properties70", [])));
  props.children.push(node("P", [stringProperty(MESH_HOLDER), stringProperty("bool"), stringProperty(""), stringProperty(""), int(1)]));
}

export function isMeshHolder(model: FbxNode | undefined): boolean {
  return childrenNamed(child(model, "Properties70"), "P").some((p) => text(p.properties[0]) === MESH_HOLDER);
}
