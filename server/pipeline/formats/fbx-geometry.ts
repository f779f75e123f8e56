/**
 * FBX mesh geometry, read and written directly on the node tree (fbx-binary.ts).
 *
 * The FBX writer and reader leave everything else (models, materials, lights, cameras, animation)
 * to @comfyorg/fbx-exporter-three and three's FBXLoader, but those handle big arrays one element
 * at a time and took seconds for a million triangles. So geometry bypasses them: the writer lets
 * the exporter emit a placeholder Geometry node per mesh and fills in the real arrays here; the
 * reader takes the arrays out here and hands FBXLoader a tree with placeholders (see fbx-read.ts).
 */
import { Euler, MathUtils, Matrix3, Matrix4, Vector3, type EulerOrder } from "three";
import { child, childrenNamed, stringProperty, text, type FbxNode, type FbxProperty } from "./fbx-binary";
import { computeNormals, sequentialIndices, type InterchangeMesh } from "./interchange";

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

/**
 * Reads a Mesh Geometry node: polygons become triangle fans (exact for the convex polygons DCC
 * tools export; n-2 triangles each either way). Normals come from the first normal layer in any
 * FBX mapping. Per-vertex normals keep the mesh indexed; per-corner ones give one vertex per
 * corner, which the importer welds again. Throws on indices outside the arrays.
 */
export function readGeometry(geometry: FbxNode, name: string): { mesh: Geometry; warnings: string[] } {
  const warnings = droppedLayers(geometry).map((attr) => `fbx: mesh "${name}": attribute ${attr} dropped`);
  const vertices = numbers(child(geometry, "Vertices")) ?? new Float64Array(0);
  const polygons = numbers(child(geometry, "PolygonVertexIndex")) ?? new Int32Array(0);
  const vertexCount = Math.floor(vertices.length / 3);
  const bad = (what: string): never => {
    throw new Error(`fbx: geometry "${name}": ${what}`);
  };

  // Triangle corners as polygon-vertex positions (p) and vertex indices (v), plus each triangle's polygon.
  let triangles = 0;
  for (let k = 0, size = 0; k < polygons.length; k++) {
    size++;
    if (polygons[k] < 0) (triangles += Math.max(0, size - 2), (size = 0));
  }
  const cornerVertex = new Uint32Array(triangles * 3), cornerPolygonVertex = new Uint32Array(triangles * 3);
  const trianglePolygon = new Uint32Array(triangles);
  let t = 0, polygon = 0, start = 0, degenerate = false;
  for (let k = 0; k < polygons.length; k++) {
    if (polygons[k] >= 0) continue;
    const size = k - start + 1;
    if (size < 3) degenerate = true;
    for (let j = 1; j + 1 < size; j++, t++) {
      trianglePolygon[t] = polygon;
      const corners = [start, start + j, start + j + 1];
      for (let c = 0; c < 3; c++) {
        const pv = corners[c], raw = polygons[pv], v = raw < 0 ? ~raw : raw;
        if (v >= vertexCount) bad(`polygon vertex ${pv} refers to vertex ${v} of ${vertexCount}`);
        cornerVertex[t * 3 + c] = v;
        cornerPolygonVertex[t * 3 + c] = pv;
      }
    }
    polygon++;
    start = k + 1;
  }
  if (degenerate) warnings.push(`fbx: mesh "${name}": polygons with fewer than 3 corners dropped`);
  if (start !== polygons.length) warnings.push(`fbx: mesh "${name}": unterminated last polygon dropped`);

  const layer = child(geometry, "LayerElementNormal");
  const normals = numbers(child(layer, "Normals"));
  if (!layer || !normals) {
    warnings.push(`fbx: mesh "${name}": had no normals; smooth normals computed`);
    const positions = new Float32Array(vertices);
    return { mesh: { positions, normals: computeNormals(positions, cornerVertex), indices: cornerVertex }, warnings };
  }
  const mapping = text(child(layer, "MappingInformationType")?.properties[0]);
  const reference = text(child(layer, "ReferenceInformationType")?.properties[0]);
  const index = reference === "IndexToDirect" ? numbers(child(layer, "NormalsIndex") ?? child(layer, "NormalIndex")) : undefined;
  if (reference === "IndexToDirect" && !index) bad("normal layer has IndexToDirect but no index");
  const normalCount = Math.floor(normals.length / 3);
  /** The normal slot for an element of the mapping (vertex, polygon vertex or polygon). */
  const slot = (element: number) => {
    const n = index ? index[element] : element;
    return n >= 0 && n < normalCount ? n : bad(`normal ${n} of ${normalCount} referenced`);
  };

  if (mapping === "ByVertice" || mapping === "ByVertex") {
    // Indexed: one normal per vertex.
    const out = new Float32Array(vertexCount * 3);
    if (!index && normalCount >= vertexCount) out.set(normals.subarray(0, out.length));
    else for (let v = 0; v < vertexCount; v++) for (let c = 0, n = slot(v) * 3; c < 3; c++) out[v * 3 + c] = normals[n + c];
    return { mesh: { positions: new Float32Array(vertices), normals: out, indices: cornerVertex }, warnings };
  }
  const element =
    mapping === "ByPolygonVertex" ? (corner: number) => cornerPolygonVertex[corner]
      : mapping === "ByPolygon" ? (corner: number) => trianglePolygon[Math.floor(corner / 3)]
        : mapping === "AllSame" ? () => 0
          : bad(`normal mapping "${mapping}" is not one FBX defines`);
  const positions = new Float32Array(triangles * 9), out = new Float32Array(triangles * 9);
  for (let corner = 0; corner < triangles * 3; corner++) {
    const v = cornerVertex[corner] * 3, n = slot(element(corner)) * 3;
    for (let c = 0; c < 3; c++) {
      positions[corner * 3 + c] = vertices[v + c];
      out[corner * 3 + c] = normals[n + c];
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
