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
 * normals keep the file a sixth of the size of the per-corner ones the exporter writes.
 */
export function setGeometry(geometry: FbxNode, mesh: Geometry): void {
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
  geometry.children = geometry.children.map((c) => replacements[c.name] ?? c);
}

/** Empties a Geometry node down to one degenerate triangle, so FBXLoader still makes a mesh of it. */
export function stubGeometry(geometry: FbxNode): void {
  geometry.children = [
    ...geometry.children.filter((c) => c.name === "Properties70" || c.name === "GeometryVersion"),
    node("Vertices", [{ type: "d", value: new Float64Array(9) }]),
    node("PolygonVertexIndex", [{ type: "i", value: Int32Array.of(0, 1, -3) }]),
  ];
}

/** Attribute layers FBX may carry that the interchange model has no place for, by three.js name. */
function droppedLayers(geometry: FbxNode): string[] {
  const uv = childrenNamed(geometry, "LayerElementUV").map((_, k) => (k === 0 ? "uv" : `uv${k}`));
  const color = childrenNamed(geometry, "LayerElementColor").length ? ["color"] : [];
  return [...uv, ...color];
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

/**
 * Reads a Mesh Geometry node. Normals come from the first normal layer in any FBX mapping:
 * per-vertex normals keep the mesh indexed, per-corner ones give one vertex per corner, which the
 * importer welds again. Normals it cannot use are recomputed, with a warning. Throws on vertex
 * indices outside the vertex list and on non-finite coordinates: there is no mesh to guess there.
 */
export function readGeometry(geometry: FbxNode, name: string): { mesh: Geometry; warnings: string[] } {
  const warnings = droppedLayers(geometry).map((attr) => `fbx: mesh "${name}": attribute ${attr} dropped`);
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
  const indices = cornerVertex.subarray(0, triangles * 3);
  const smooth = (why: string) => {
    warnings.push(`fbx: mesh "${name}": ${why}; smooth normals computed`);
    const positions = new Float32Array(vertices);
    return { mesh: { positions, normals: computeNormals(positions, indices), indices }, warnings };
  };

  const layer = child(geometry, "LayerElementNormal");
  const normals = numbers(child(layer, "Normals"));
  if (!layer || !normals) return smooth("had no normals");
  const mapping = text(child(layer, "MappingInformationType")?.properties[0]);
  const reference = text(child(layer, "ReferenceInformationType")?.properties[0]);
  const index = reference === "IndexToDirect" ? numbers(child(layer, "NormalsIndex") ?? child(layer, "NormalIndex")) : undefined;
  if (reference === "IndexToDirect" && !(index instanceof Int32Array)) return smooth("normal layer has IndexToDirect but no int32 index");
  const normalCount = Math.floor(normals.length / 3);
  /** The normal slot for an element of the mapping (vertex, polygon vertex or polygon), or -1. */
  const slot = (element: number) => {
    const n = index ? (element < index.length ? index[element] : -1) : element;
    return n >= 0 && n < normalCount ? n : -1;
  };

  if (mapping === "ByVertice" || mapping === "ByVertex") {
    // Indexed: one normal per vertex.
    const out = new Float32Array(vertexCount * 3);
    if (!index && normalCount >= vertexCount) out.set(normals.subarray(0, out.length));
    else for (let v = 0; v < vertexCount; v++) {
      const n = slot(v);
      if (n < 0) return smooth(`normal of vertex ${v} missing`);
      for (let c = 0; c < 3; c++) out[v * 3 + c] = normals[n * 3 + c];
    }
    return { mesh: { positions: new Float32Array(vertices), normals: out, indices }, warnings };
  }
  const element =
    mapping === "ByPolygonVertex" ? (corner: number) => cornerPolygonVertex[corner]
      : mapping === "ByPolygon" ? (corner: number) => trianglePolygon[Math.floor(corner / 3)]
        : mapping === "AllSame" ? () => 0
          : undefined;
  if (!element) return smooth(`normals mapped "${mapping}", which Kiln does not read`);
  const positions = new Float32Array(triangles * 9), out = new Float32Array(triangles * 9);
  for (let corner = 0; corner < triangles * 3; corner++) {
    const v = cornerVertex[corner] * 3, n = slot(element(corner));
    if (n < 0) return smooth(`normal of corner ${cornerPolygonVertex[corner]} missing`);
    for (let c = 0; c < 3; c++) {
      positions[corner * 3 + c] = vertices[v + c];
      out[corner * 3 + c] = normals[n * 3 + c];
    }
  }
  return { mesh: { positions, normals: out, indices: sequentialIndices(triangles * 3) }, warnings };
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
