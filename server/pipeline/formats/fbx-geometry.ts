/**
 * FBX mesh geometry, read and written directly on the node tree (fbx-binary.ts).
 *
 * The FBX writer and reader leave everything else (models, materials, lights, cameras, animation)
 * to @comfyorg/fbx-exporter-three and three's FBXLoader, but those handle big arrays one element
 * at a time and took seconds for a million triangles. So geometry bypasses them: the writer lets
 * the exporter emit a placeholder Geometry node per mesh and fills in the real arrays here; the
 * reader takes the arrays out here and hands FBXLoader a tree with placeholders (see fbx-read.ts).
 */
import { Euler, MathUtils, Matrix3, Matrix4, ShapeUtils, Vector2, Vector3, type EulerOrder } from "three";
import { child, childrenNamed, stringProperty, text, type FbxNode, type FbxProperty } from "./fbx-binary";
import { computeNormals, sequentialIndices, type InterchangeMesh } from "./interchange";
import { LIMITS } from "./limits";
import { colorElement, layerElements, layerNodes, materialElement, readLayer, srgbToLinear, uvElement, type CornerSource, type LayerData } from "./fbx-layers";

type Geometry = Omit<InterchangeMesh, "name">;

const int = (value: number): FbxProperty => ({ type: "I", value });
const node = (name: string, properties: FbxProperty[], children: FbxNode[] = []): FbxNode => ({ name, properties, children });

/** The numbers of a node's first property, if it is a numeric array. */
export function numbers(n: FbxNode | undefined): Float64Array | Float32Array | Int32Array | undefined {
  const p = n?.properties[0];
  return p && (p.type === "d" || p.type === "f" || p.type === "i") ? p.value : undefined;
}

/** The name before FBX's "\0\1Class" suffix of an object node ("Cube\0\1Geometry" → "Cube"). */
export function objectName(n: FbxNode): string {
  return text(n.properties[1]).split("\0\u0001")[0];
}

/**
 * Replaces a Geometry node's arrays with `mesh`: double-precision vertices, triangles as
 * polygons (the last corner of each stored as ~index, FBX's polygon end mark), and normals per
 * vertex ("ByVertice", "Direct"), which Blender, assimp and FBXLoader all read. Per-vertex
 * normals keep the file a sixth of the size of the per-corner ones the exporter writes. UV sets,
 * vertex colours and the material index of each triangle (its group's slot, `groupSlots`; the
 * group's number without it) go in layers after them
 * (fbx-layers.ts), replacing the exporter's material layer and layer list.
 */
export function setGeometry(geometry: FbxNode, mesh: Geometry, groupSlots?: number[]): void {
  const polygonVertexIndex = new Int32Array(mesh.indices);
  for (let k = 2; k < polygonVertexIndex.length; k += 3) polygonVertexIndex[k] = ~polygonVertexIndex[k];
  const replacements: Record<string, FbxNode> = {
    Vertices: node("Vertices", [{ type: "d", value: new Float64Array(mesh.positions) }]),
    PolygonVertexIndex: node("PolygonVertexIndex", [{ type: "i", value: polygonVertexIndex }]),
    LayerElementNormal: node("LayerElementNormal", [int(0)], [
      node("Version", [int(101)]),
      node("Name", [stringProperty("")]),
      node("MappingInformationType", [stringProperty("ByVertice")]),
      node("ReferenceInformationType", [stringProperty("Direct")]),
      node("Normals", [{ type: "d", value: new Float64Array(mesh.normals) }]),
    ]),
  };
  const missing = Object.keys(replacements).filter((name) => !child(geometry, name));
  if (missing.length) throw new Error(`fbx: placeholder geometry lacks ${missing.join(", ")}`);
  const replaced = new Set(["LayerElementMaterial", "LayerElementUV", "LayerElementColor", "Layer"]);
  const uvs = mesh.uvs ?? [];
  geometry.children = [
    ...geometry.children.filter((c) => !replaced.has(c.name)).map((c) => replacements[c.name] ?? c),
    materialElement(mesh.indices.length / 3, mesh.groups, groupSlots),
    ...uvs.map((uv, k) => uvElement(k, uv, mesh.indices)),
    ...(mesh.colors ? [colorElement(mesh.colors, mesh.indices)] : []),
    ...layerNodes(uvs.length, !!mesh.colors),
  ];
}

/** Empties a Geometry node down to one degenerate triangle, so FBXLoader still makes a mesh of it. */
export function stubGeometry(geometry: FbxNode): void {
  geometry.children = [
    ...geometry.children.filter((c) => c.name === "Properties70" || c.name === "GeometryVersion"),
    node("Vertices", [{ type: "d", value: new Float64Array(9) }]),
    node("PolygonVertexIndex", [{ type: "i", value: Int32Array.of(0, 1, -3) }]),
  ];
}

/** Triangles one geometry may have (the file's whole budget), counted before its arrays are allocated. */
const MAX_TRIANGLES = LIMITS.triangles;

/** Corner offsets (within a polygon) of its triangles, written to `emit`. */
type Emit = (a: number, b: number, c: number) => void;

/**
 * Triangulates one polygon given its vertex indices: triangles as they are, convex quads split
 * on a diagonal (nearly every polygon DCC tools export, so these stay allocation-free), anything
 * else by earcut on the polygon's plane exactly as FBXLoader does, so concave polygons keep their
 * shape. Triangles keep the polygon's winding.
 */
function triangulate(vertices: ArrayLike<number>, corners: number[], emit: Emit): void {
  const n = corners.length;
  if (n === 3) return emit(0, 1, 2);
  const p = corners.map((v) => new Vector3(vertices[v * 3], vertices[v * 3 + 1], vertices[v * 3 + 2]));
  // Newell's normal: robust for non-planar polygons, and its direction is the polygon's winding.
  const normal = new Vector3();
  p.forEach((a, i) => {
    const b = p[(i + 1) % n];
    normal.x += (a.y - b.y) * (a.z + b.z);
    normal.y += (a.z - b.z) * (a.x + b.x);
    normal.z += (a.x - b.x) * (a.y + b.y);
  });
  const turn = (i: number) => new Vector3().subVectors(p[i], p[(i + n - 1) % n]).cross(new Vector3().subVectors(p[(i + 1) % n], p[i])).dot(normal);
  if (n === 4 && [0, 1, 2, 3].every((i) => turn(i) > 0)) return (emit(0, 1, 2), emit(0, 2, 3));
  if (normal.lengthSq() === 0) return; // degenerate: no area to cover
  normal.normalize();
  // FBXLoader's plane basis (getNormalTangentAndBitangent): tangent × bitangent = normal, so the
  // flattened polygon winds counter-clockwise.
  const up = Math.abs(normal.z) > 0.5 ? new Vector3(0, 1, 0) : new Vector3(0, 0, 1);
  const tangent = up.cross(normal).normalize();
  const bitangent = normal.clone().cross(tangent).normalize();
  const flat = p.map((v) => new Vector2(v.dot(tangent), v.dot(bitangent)));
  for (const [a, b, c] of ShapeUtils.triangulateShape(flat, [])) {
    const area = (flat[b].x - flat[a].x) * (flat[c].y - flat[a].y) - (flat[b].y - flat[a].y) * (flat[c].x - flat[a].x);
    if (area >= 0) emit(a, b, c);
    else emit(a, c, b);
  }
}

/** A geometry as read: the mesh, the material index of each group (-1: none), its UV sets' names. */
export interface ReadGeometry {
  mesh: Geometry;
  /** One per group (or one for a mesh without groups); indices into the model's connected materials. */
  materialSlots: number[];
  uvSetNames: string[];
  /** The geometry's vertex (control point) count, and each output vertex's control point when the mesh was unindexed (one vertex per corner). */
  controlPoints: number;
  controlPoint?: Uint32Array;
  warnings: string[];
}

/**
 * Reads a Mesh Geometry node. Normals come from the first normal layer in any FBX mapping, UV
 * sets (two) and vertex colours (one layer) from theirs (fbx-layers.ts): per-vertex normals with
 * UVs and colours that have one value per vertex keep the mesh indexed, anything else gives one
 * vertex per corner, which the importer welds again. Normals it cannot use are recomputed and UV
 * sets or colours it cannot use dropped, with a warning. Throws on vertex indices outside the
 * vertex list and on non-finite coordinates: there is no mesh to guess there.
 */
export function readGeometry(geometry: FbxNode, name: string): ReadGeometry {
  const warnings: string[] = [];
  const bad = (what: string): never => {
    throw new Error(`fbx: geometry "${name}": ${what}`);
  };
  const vertices = numbers(child(geometry, "Vertices")) ?? new Float64Array(0);
  const polygons = numbers(child(geometry, "PolygonVertexIndex")) ?? new Int32Array(0);
  if (!(polygons instanceof Int32Array)) bad("PolygonVertexIndex is not an int32 array");
  for (let k = 0; k < vertices.length; k++) if (!Number.isFinite(vertices[k])) bad("vertex coordinates are not finite");
  const vertexCount = Math.floor(vertices.length / 3);

  // Triangle corners as vertex indices (v) and polygon-vertex positions (p), plus each triangle's
  // polygon; a polygon of n corners gives at most n - 2 triangles.
  let bound = 0;
  for (let k = 0, size = 0; k < polygons.length; k++) {
    size++;
    if (polygons[k] < 0) (bound += Math.max(0, size - 2), (size = 0));
  }
  if (bound > MAX_TRIANGLES) bad(`more than ${MAX_TRIANGLES} triangles`);
  const cornerVertex = new Uint32Array(bound * 3), cornerPolygonVertex = new Uint32Array(bound * 3), trianglePolygon = new Uint32Array(bound);
  let t = 0, polygon = 0, start = 0, degenerate = false;
  const corners: number[] = [];
  const emit: Emit = (a, b, c) => {
    trianglePolygon[t] = polygon;
    const o = t++ * 3;
    cornerVertex[o] = corners[a];
    cornerVertex[o + 1] = corners[b];
    cornerVertex[o + 2] = corners[c];
    cornerPolygonVertex[o] = start + a;
    cornerPolygonVertex[o + 1] = start + b;
    cornerPolygonVertex[o + 2] = start + c;
  };
  for (let k = 0; k < polygons.length; k++) {
    const raw = polygons[k], v = raw < 0 ? ~raw : raw;
    if (v >= vertexCount) bad(`polygon vertex ${k} refers to vertex ${v} of ${vertexCount}`);
    corners.push(v);
    if (raw >= 0) continue;
    if (corners.length < 3) degenerate = true;
    else triangulate(vertices, corners, emit);
    polygon++;
    start = k + 1;
    corners.length = 0;
  }
  const triangles = t;
  if (degenerate) warnings.push(`fbx: mesh "${name}": polygons with fewer than 3 corners dropped`);
  if (start !== polygons.length) warnings.push(`fbx: mesh "${name}": unterminated last polygon dropped`);
  const cornerCount = triangles * 3;
  const source: CornerSource = { vertex: (c) => cornerVertex[c], polygonVertex: (c) => cornerPolygonVertex[c], polygon: (c) => trianglePolygon[Math.floor(c / 3)] };
  /** The first corner whose value the layer lacks, or -1. */
  const firstMissing = (l: LayerData) => {
    for (let c = 0; c < cornerCount; c++) if (l.slot(c) < 0) return c;
    return -1;
  };

  // Normals: a layer that cannot give every corner one makes all of them computed instead.
  let normals: LayerData | undefined, normalsWhy = "had no normals";
  const normalLayer = child(geometry, "LayerElementNormal");
  const byVertex = ["ByVertice", "ByVertex"].includes(text(child(normalLayer, "MappingInformationType")?.properties[0]));
  if (normalLayer) {
    const read = readLayer(normalLayer, "Normals", ["NormalsIndex", "NormalIndex"], 3, source);
    if (typeof read === "string") normalsWhy = read === "has no Normals array" ? "had no normals" : `normal layer ${read}`;
    else {
      const c = firstMissing(read);
      if (c < 0) normals = read;
      else normalsWhy = byVertex ? `normal of vertex ${cornerVertex[c]} missing` : `normal of corner ${cornerPolygonVertex[c]} missing`;
    }
  }
  if (!normals) warnings.push(`fbx: mesh "${name}": ${normalsWhy}; smooth normals computed`);

  // UV sets (two at most) and vertex colours (the first layer): dropped with a warning when unreadable.
  const optional = (type: string, what: string, dataName: string, indexName: string, size: number, keep: number) =>
    layerElements(geometry, type).flatMap((layer, k) => {
      const label = `${what} "${text(child(layer, "Name")?.properties[0])}"`;
      if (k >= keep) return (warnings.push(`fbx: mesh "${name}": ${label} dropped (Kiln keeps ${keep})`), []);
      const read = readLayer(layer, dataName, [indexName], size, source);
      if (typeof read === "string") return (warnings.push(`fbx: mesh "${name}": ${label} ${read}; dropped`), []);
      const c = firstMissing(read);
      if (c >= 0) return (warnings.push(`fbx: mesh "${name}": ${label} has no value for polygon vertex ${cornerPolygonVertex[c]}; dropped`), []);
      return [read];
    });
  const uvLayers = optional("LayerElementUV", "UV set", "UV", "UVIndex", 2, 2);
  const colorLayers = optional("LayerElementColor", "colour layer", "Colors", "ColorIndex", 4, 1);
  const groups = materialGroups(geometry, name, triangles, source, warnings);

  // Kiln's own files (normals per vertex, UVs and colours with one value per vertex) stay
  // indexed with their vertex order; anything else gets one vertex per corner.
  const perVertex = (l: LayerData) => {
    const seen = new Int32Array(vertexCount).fill(-1);
    for (let c = 0; c < cornerCount; c++) {
      const v = cornerVertex[c], s = l.slot(c);
      if (seen[v] === -1) seen[v] = s;
      else if (seen[v] !== s) return undefined;
    }
    if (l.vertexSlot) for (let v = 0; v < vertexCount; v++) if (seen[v] === -1) seen[v] = l.vertexSlot(v);
    return seen;
  };
  const others = [...uvLayers, ...colorLayers];
  const vertexSlots = (!normals || byVertex) ? [normals, ...others].map((l) => (l ? perVertex(l) : null)) : [];
  const indexed = (!normals || byVertex) && vertexSlots.every((s) => s !== undefined);
  const outCount = indexed ? vertexCount : cornerCount;
  /** The slot of output vertex `o` in layer `l` (number `k` of normals, UV sets, colours), or -1 for a vertex no corner uses. */
  const slotOf = (l: LayerData, k: number, o: number) => (indexed ? vertexSlots[k]![o] : l.slot(o));
  const fill = (l: LayerData, k: number, out: Float32Array, size: number) => {
    for (let o = 0; o < outCount; o++) {
      const s = slotOf(l, k, o);
      if (s >= 0) for (let c = 0; c < size; c++) out[o * size + c] = l.data[s * l.size + c];
    }
    return out;
  };
  let positions: Float32Array;
  if (indexed) positions = new Float32Array(vertices);
  else {
    positions = new Float32Array(cornerCount * 3);
    for (let c = 0; c < cornerCount; c++) for (let k = 0; k < 3; k++) positions[c * 3 + k] = vertices[cornerVertex[c] * 3 + k];
  }
  const indices = indexed ? cornerVertex.subarray(0, cornerCount) : sequentialIndices(cornerCount);
  const mesh: Geometry = { positions, normals: normals ? fill(normals, 0, new Float32Array(outCount * 3), 3) : computeNormals(positions, indices), indices };
  if (uvLayers.length) {
    mesh.uvs = uvLayers.map((l, k) => fill(l, 1 + k, new Float32Array(outCount * 2), 2));
    for (const uv of mesh.uvs) for (let i = 1; i < uv.length; i += 2) uv[i] = 1 - uv[i]; // FBX V up → glTF V down
  }
  if (colorLayers.length) {
    const colors = fill(colorLayers[0], 1 + uvLayers.length, new Float32Array(outCount * 4).fill(1), 4);
    for (let i = 0; i < colors.length; i++) if (i % 4 !== 3) colors[i] = srgbToLinear(colors[i]);
    mesh.colors = colors;
  }
  if (groups.groups.length > 1) mesh.groups = groups.groups;
  const controlPoint = indexed ? undefined : cornerVertex.subarray(0, cornerCount);
  return { mesh, materialSlots: groups.slots, uvSetNames: uvLayers.map((l) => l.name), controlPoints: vertexCount, ...(controlPoint ? { controlPoint } : {}), warnings };
}

/**
 * Material slots from the material layer: consecutive runs of triangles with the same material
 * index become groups, each with its index (-1 where the index is missing or negative). A mesh
 * without a material layer is one run with index 0.
 */
function materialGroups(geometry: FbxNode, name: string, triangles: number, corners: CornerSource, warnings: string[]) {
  const layer = child(geometry, "LayerElementMaterial");
  let slotOf = (_triangle: number) => 0;
  if (layer) {
    const mapping = text(child(layer, "MappingInformationType")?.properties[0]);
    const p = child(layer, "Materials")?.properties[0];
    if (p?.type !== "i") warnings.push(`fbx: mesh "${name}": material layer has no int32 Materials array; first material used`);
    else if (mapping === "ByPolygon") slotOf = (t) => {
      const polygon = corners.polygon(t * 3);
      return polygon < p.value.length && p.value[polygon] >= 0 ? p.value[polygon] : -1;
    };
    else if (mapping === "AllSame") slotOf = () => (p.value.length && p.value[0] >= 0 ? p.value[0] : -1);
    else warnings.push(`fbx: mesh "${name}": material layer mapped "${mapping}", which Kiln does not read; first material used`);
  }
  const groups: { start: number; count: number }[] = [], slots: number[] = [];
  for (let t = 0; t < triangles; t++) {
    const s = slotOf(t);
    if (slots.length && slots[slots.length - 1] === s) groups[groups.length - 1].count += 3;
    else (groups.push({ start: t * 3, count: 3 }), slots.push(s));
  }
  return { groups, slots };
}

/** The values of a model's Properties70 entry `name` (after its four header strings), if present. */
export function modelProperty(model: FbxNode, name: string): (number | bigint | boolean | string)[] | undefined {
  const p = childrenNamed(child(model, "Properties70"), "P").find((e) => text(e.properties[0]) === name);
  return p?.properties.slice(4).map((v) => (v.type === "S" ? text(v) : (v.value as number | bigint | boolean)));
}

/** FBX rotation order enum → three.js Euler order (FBX names the order rotations apply in). */
const EULER_ORDERS: EulerOrder[] = ["ZYX", "YZX", "XZY", "ZXY", "YXZ", "XYZ"];

/**
 * A model's geometric transform (GeometricTranslation/Rotation/Scaling: an offset of the geometry
 * that children do not inherit), or null when it has none. FBXLoader bakes it into the geometry;
 * so does the reader.
 */
export function geometricTransform(model: FbxNode): Matrix4 | null {
  const vec = (name: string, fallback: number) => (modelProperty(model, name) ?? [fallback, fallback, fallback]).slice(0, 3).map(Number);
  const [t, r, s] = [vec("GeometricTranslation", 0), vec("GeometricRotation", 0), vec("GeometricScaling", 1)];
  if ([...t, ...r].every((x) => x === 0) && s.every((x) => x === 1)) return null;
  const order = EULER_ORDERS[Number(modelProperty(model, "RotationOrder")?.[0] ?? 0)] ?? "ZYX";
  const rotation = new Matrix4().makeRotationFromEuler(new Euler(MathUtils.degToRad(r[0]), MathUtils.degToRad(r[1]), MathUtils.degToRad(r[2]), order));
  return new Matrix4().makeTranslation(t[0], t[1], t[2]).multiply(rotation).scale(new Vector3(s[0], s[1], s[2]));
}

/** `mesh` with `m` applied to its positions and (normalised) normals, as new arrays. */
export function transformGeometry(mesh: Geometry, m: Matrix4): Geometry {
  const positions = new Float32Array(mesh.positions.length), normals = new Float32Array(mesh.normals.length);
  const v = new Vector3(), normalMatrix = new Matrix3().getNormalMatrix(m);
  for (let k = 0; k < positions.length; k += 3) {
    v.fromArray(mesh.positions, k).applyMatrix4(m).toArray(positions, k);
    v.fromArray(mesh.normals, k).applyMatrix3(normalMatrix).normalize().toArray(normals, k);
  }
  return { positions, normals, indices: mesh.indices };
}
