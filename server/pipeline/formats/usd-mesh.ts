/**
 * A USD Mesh prim as an interchange mesh: triangulated (fans), scaled to metres, with its normals,
 * UV sets (texCoord2f/float2 primvars: `st` first, then `st1`, then others, at most two), vertex
 * colours (primvars:displayColor/displayOpacity per vertex or corner, linear as USD's are) and
 * material slots (GeomSubsets of family materialBind, whose faces become consecutive triangle
 * ranges in subset order; faces in no subset form a last, unbound slot).
 *
 * Per-point data keeps the index buffer; as soon as one attribute is per corner (faceVarying) or
 * per face (uniform), every corner becomes its own vertex (the import welds them back).
 */
import { budget } from "./limits";
import { computeNormals, type InterchangeMesh, type InterchangeScene } from "./interchange";
import type { UsdPath, UsdPrim, UsdValue } from "./usda-parse";

type Vec = number[];
const vec = (v: UsdValue | undefined): Vec | undefined => (Array.isArray(v) ? (v as Vec) : undefined);
const isIndex = (v: number, below: number) => Number.isInteger(v) && v >= 0 && v < below;

/** One attribute over the mesh: values of `width` numbers, by interpolation, optionally indexed. */
interface Attribute { key: string; values: Vec; width: number; interp: string; indices?: Vec }

/**
 * What readMesh read: the mesh's index in `scene.meshes` and, with subsets, each slot's bound
 * material path (undefined: the subset has none, so USD binds the mesh's own material).
 */
export interface ReadMesh {
  mesh: number;
  slots?: (string | undefined)[];
  doubleSided: boolean;
  /** The point each vertex was made from, when corners became vertices (else vertex = point). */
  pointOf?: ArrayLike<number>;
  /** Points of the prim (per-point data such as skin weights and blend shapes is sized by it). */
  points: number;
}

function attribute(p: UsdPrim, key: string, width: number, fallback: string): Attribute | undefined {
  const prop = p.properties.get(key);
  const values = vec(prop?.value);
  if (!prop || !values) return undefined;
  return { key, values, width, interp: String(prop.metadata.interpolation ?? fallback), indices: vec(p.properties.get(`${key}:indices`)?.value) };
}

/** The texture coordinate primvars of a mesh, `st` and `st1` first. */
function uvKeys(p: UsdPrim): string[] {
  const keys = [...p.properties.entries()].filter(([k, prop]) => k.startsWith("primvars:") && !k.endsWith(":indices") && /^(texCoord2[fdh]|float2)\[\]$/.test(prop.type)).map(([k]) => k);
  const rank = (k: string) => (k === "primvars:st" ? 0 : k === "primvars:st1" ? 1 : 2);
  return keys.sort((a, b) => rank(a) - rank(b));
}

/**
 * The counts a Mesh prim declares against the arrays it holds, before anything is allocated from
 * them: `faceVertexCounts = [2000000000]` with three indices must be refused, not triangulated.
 */
function checkMeshCounts(mesh: string, points: Vec, counts: Vec, corners: Vec, attributes: Attribute[]): void {
  budget(points.length % 3 === 0, `${mesh}: points do not come in triples`);
  let total = 0;
  for (const c of counts) {
    budget(Number.isInteger(c) && c >= 0, `${mesh}: faceVertexCounts holds ${c}, not a vertex count`);
    total += c;
  }
  budget(total === corners.length, `${mesh}: faceVertexCounts adds up to ${total} corners but faceVertexIndices holds ${corners.length}`);
  const vertices = points.length / 3;
  for (const i of corners) budget(isIndex(i, vertices), `${mesh}: faceVertexIndices refers to point ${i} of ${vertices}`);
  for (const a of attributes) {
    const what = a.key === "normals" || a.key === "primvars:normals" ? "normals" : a.key;
    const elements = a.values.length / a.width;
    budget(Number.isInteger(elements), `${mesh}: ${what} do not come in groups of ${a.width}`);
    if (a.indices) for (const i of a.indices) budget(isIndex(i, elements), `${mesh}: ${what === "normals" ? "normal" : what} indices refer to ${what === "normals" ? "normal" : "element"} ${i} of ${elements}`);
    const available = a.indices ? a.indices.length : elements;
    const needed = a.interp === "faceVarying" ? corners.length : a.interp === "uniform" ? counts.length : a.interp === "constant" ? 1 : vertices;
    budget(available >= needed, `${mesh}: ${a.interp} ${what} need ${needed} values but the file holds ${available}`);
  }
}

/** Builds an interchange mesh from a Mesh prim (see the module comment). */
export function readMesh(p: UsdPrim, name: string, mpu: number, warn: (m: string) => void, scene: InterchangeScene): ReadMesh {
  const mesh = `usd: mesh "${name}"`;
  const points = vec(p.properties.get("points")?.value) ?? [];
  const counts = vec(p.properties.get("faceVertexCounts")?.value) ?? [];
  const corners = vec(p.properties.get("faceVertexIndices")?.value) ?? [];
  const normals = attribute(p, p.properties.has("normals") ? "normals" : "primvars:normals", 3, "vertex");
  const uvs = uvKeys(p).flatMap((k) => attribute(p, k, 2, "vertex") ?? []);
  const colors = attribute(p, "primvars:displayColor", 3, "constant");
  const opacity = attribute(p, "primvars:displayOpacity", 1, "constant");
  // A constant or per-face display colour is a viewport tint, not vertex colours.
  const perElement = (a: Attribute | undefined) => a && a.interp !== "constant" && a.interp !== "uniform" ? a : undefined;
  const color = perElement(colors), alpha = color && perElement(opacity);
  const attributes = [normals, ...uvs.slice(0, 2), color, alpha].filter((a): a is Attribute => !!a);
  checkMeshCounts(mesh, points, counts, corners, attributes);
  for (const a of uvs.slice(2)) warn(`${mesh}: UV set ${a.key} dropped (at most two are read)`);
  const read = new Set(attributes.map((a) => a.key));
  for (const key of p.properties.keys())
    if (key.startsWith("primvars:") && !key.endsWith(":indices") && !read.has(key) && !key.startsWith("primvars:normals") && !key.startsWith("primvars:skel:") && !uvs.some((a) => a.key === key) && !(key.startsWith("primvars:display") && !color))
      warn(`${mesh}: ${key} dropped`);
  if (String(p.properties.get("subdivisionScheme")?.value ?? "catmullClark") !== "none") warn(`${mesh}: subdivision surface read as its control cage`);
  if (counts.some((c) => c > 3)) warn(`${mesh}: polygons triangulated as fans`);
  const flip = p.properties.get("orientation")?.value === "leftHanded";
  const subsets = readSubsets(p, counts.length, mesh, warn);

  const perPoint = attributes.every((a) => a.interp === "vertex" || a.interp === "varying" || a.interp === "constant");
  const vertexCount = perPoint ? points.length / 3 : corners.length;
  const positions = new Float32Array(vertexCount * 3);
  const out = attributes.map((a) => new Float32Array(vertexCount * a.width));
  /** Writes every attribute of the vertex `v` made from face `face`'s corner `c` (point `pt`). */
  const fill = (v: number, face: number, c: number, pt: number) => {
    for (let k = 0; k < 3; k++) positions[3 * v + k] = points[3 * pt + k] * mpu;
    attributes.forEach((a, n) => {
      let e = a.interp === "faceVarying" ? c : a.interp === "uniform" ? face : a.interp === "constant" ? 0 : pt;
      if (a.indices) e = a.indices[e];
      for (let k = 0; k < a.width; k++) out[n][a.width * v + k] = a.values[a.width * e + k];
    });
  };
  const faceStart = new Array<number>(counts.length);
  for (let face = 0, c = 0; face < counts.length; c += counts[face++]) faceStart[face] = c;
  if (perPoint) for (let pt = 0; pt < vertexCount; pt++) fill(pt, 0, 0, pt);
  else for (let face = 0; face < counts.length; face++) for (let k = 0; k < counts[face]; k++) fill(faceStart[face] + k, face, faceStart[face] + k, corners[faceStart[face] + k]);

  const idx: number[] = [];
  const groups: { start: number; count: number }[] = [];
  const triangulate = (face: number) => {
    const c = faceStart[face], v = (k: number) => (perPoint ? corners[c + k] : c + k);
    for (let k = 1; k + 1 < counts[face]; k++) idx.push(v(0), flip ? v(k + 1) : v(k), flip ? v(k) : v(k + 1));
  };
  const slots: (string | undefined)[] = [];
  if (subsets) {
    for (const s of subsets) {
      const start = idx.length;
      s.faces.forEach(triangulate);
      if (idx.length > start) (groups.push({ start, count: idx.length - start }), slots.push(s.material));
    }
  } else counts.forEach((_, face) => triangulate(face));

  const indices = Uint32Array.from(idx);
  const result: InterchangeMesh = { name, positions, indices, normals: new Float32Array(0) };
  let n = 0;
  if (normals) result.normals = out[n++];
  else {
    warn(`${mesh}: had no normals; smooth normals computed`);
    result.normals = computeNormals(positions, indices);
  }
  const uvSets = uvs.slice(0, 2).map(() => {
    const uv = out[n++];
    for (let k = 1; k < uv.length; k += 2) uv[k] = 1 - uv[k]; // USD's V up → glTF's V down
    return uv;
  });
  if (uvSets.length) result.uvs = uvSets;
  if (color) {
    const rgb = out[n++], a = alpha ? out[n++] : undefined;
    result.colors = new Float32Array((rgb.length / 3) * 4);
    for (let v = 0; v < rgb.length / 3; v++) result.colors.set([rgb[3 * v], rgb[3 * v + 1], rgb[3 * v + 2], a ? a[v] : 1], 4 * v);
  }
  if (groups.length > 1) result.groups = groups;
  const doubleSided = p.properties.get("doubleSided")?.value === 1 || p.properties.get("doubleSided")?.value === true;
  return { mesh: scene.meshes.push(result) - 1, ...(subsets ? { slots } : {}), doubleSided, points: points.length / 3, ...(perPoint ? {} : { pointOf: corners }) };
}

/** The material paths the materialBind face subsets of a Mesh prim bind, in order (undefined: none). */
export function subsetBindings(p: UsdPrim): (string | undefined)[] {
  return p.children.filter(isMaterialSubset).map((c) => {
    const binding = c.properties.get("material:binding")?.value;
    return (Array.isArray(binding) ? (binding[0] as UsdPath) : (binding as UsdPath | undefined))?.path;
  });
}

const isMaterialSubset = (c: UsdPrim) => c.type === "GeomSubset" && String(c.properties.get("familyName")?.value ?? "") === "materialBind" && String(c.properties.get("elementType")?.value ?? "face") === "face";

/**
 * The materialBind GeomSubsets of a mesh, as face lists with their bound material path, and a last
 * unbound subset of the faces no subset holds; undefined when the mesh has none.
 */
function readSubsets(p: UsdPrim, faceCount: number, mesh: string, warn: (m: string) => void): { faces: number[]; material?: string }[] | undefined {
  const subsets = p.children.filter((c) => c.type === "GeomSubset");
  const bind = subsets.filter(isMaterialSubset);
  for (const c of subsets) if (!bind.includes(c)) warn(`${mesh}: face subset "${c.name}" dropped (not a materialBind face subset)`);
  if (!bind.length) return undefined;
  const claimed = new Uint8Array(faceCount);
  const out = bind.map((c) => {
    const faces: number[] = [];
    for (const f of vec(c.properties.get("indices")?.value) ?? []) {
      budget(isIndex(f, faceCount), `${mesh}: GeomSubset "${c.name}" refers to face ${f} of ${faceCount}`);
      if (claimed[f]) warn(`${mesh}: a face in several material subsets is kept in the first`);
      else (claimed[f] = 1), faces.push(f);
    }
    return { faces, material: subsetBindings(p)[bind.indexOf(c)] };
  });
  const rest: number[] = [];
  for (let f = 0; f < faceCount; f++) if (!claimed[f]) rest.push(f);
  if (rest.length) out.push({ faces: rest, material: undefined });
  return out;
}
