/**
 * FBX geometry layers beyond normals: UV sets, vertex colours and per-polygon material indices,
 * as LayerElement* nodes plus the Layer nodes that list them (assimp and the FBX SDK find layer
 * elements through those; Blender reads the elements directly).
 *
 * Conventions, as Blender's io_scene_fbx writes and reads them:
 * - UVs: origin bottom left (V up), so V is 1 - V of the interchange model's (glTF's) UVs.
 * - Colours: sRGB-encoded RGBA (Blender 3.4 imports and exports them with colors_type "SRGB");
 *   the interchange model holds linear RGB, so RGB goes through the sRGB transfer function and
 *   alpha stays as it is.
 * - Material indices: one per polygon ("ByPolygon"), an index into the materials connected to the
 *   model, in connection order.
 */
import { child, childrenNamed, stringProperty, text, type FbxNode, type FbxProperty } from "./fbx-binary";

/** Names of the UV sets Kiln writes (Blender's default names for a first and second UV map). */
export const UV_SET_NAMES = ["UVMap", "UVMap.001"] as const;

const int = (value: number): FbxProperty => ({ type: "I", value });
const node = (name: string, properties: FbxProperty[], children: FbxNode[] = []): FbxNode => ({ name, properties, children });

export const srgbToLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
export const linearToSrgb = (c: number) => (c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055);

/** A layer element with its header, data per vertex, and an index per polygon vertex (the polygon's vertex indices). */
function element(type: string, k: number, name: string, mapping: string, reference: string, data: FbxNode[]): FbxNode {
  return node(type, [int(k)], [
    node("Version", [int(101)]),
    node("Name", [stringProperty(name)]),
    node("MappingInformationType", [stringProperty(mapping)]),
    node("ReferenceInformationType", [stringProperty(reference)]),
    ...data,
  ]);
}

/**
 * A UV set: one UV per vertex and, per polygon vertex, the vertex's index ("ByPolygonVertex",
 * "IndexToDirect": the form Blender and the FBX SDK write, which every reader takes).
 */
export function uvElement(k: number, uv: Float32Array, indices: Uint32Array): FbxNode {
  const flipped = new Float64Array(uv);
  for (let i = 1; i < flipped.length; i += 2) flipped[i] = 1 - flipped[i];
  return element("LayerElementUV", k, UV_SET_NAMES[k], "ByPolygonVertex", "IndexToDirect", [
    node("UV", [{ type: "d", value: flipped }]),
    node("UVIndex", [{ type: "i", value: new Int32Array(indices) }]),
  ]);
}

/** Vertex colours (linear RGBA in, sRGB-encoded RGB out), mapped as UV sets are. */
export function colorElement(colors: Float32Array, indices: Uint32Array): FbxNode {
  const out = new Float64Array(colors.length);
  for (let i = 0; i < out.length; i++) out[i] = i % 4 === 3 ? colors[i] : linearToSrgb(colors[i]);
  return element("LayerElementColor", 0, "Color", "ByPolygonVertex", "IndexToDirect", [
    node("Colors", [{ type: "d", value: out }]),
    node("ColorIndex", [{ type: "i", value: new Int32Array(indices) }]),
  ]);
}

/** Material index per triangle: its group's slot (default: the group's number) for a mesh with groups, else 0 for all. */
export function materialElement(triangles: number, groups: { start: number; count: number }[] | undefined, groupSlots?: number[]): FbxNode {
  if (!groups) return element("LayerElementMaterial", 0, "", "AllSame", "IndexToDirect", [node("Materials", [{ type: "i", value: Int32Array.of(0) }])]);
  const materials = new Int32Array(triangles);
  groups.forEach((g, k) => materials.fill(groupSlots?.[k] ?? k, g.start / 3, (g.start + g.count) / 3));
  return element("LayerElementMaterial", 0, "", "ByPolygon", "IndexToDirect", [node("Materials", [{ type: "i", value: materials }])]);
}

/** The Layer nodes listing the elements: layer 0 holds normals, materials, the first UV set and colours; layer 1 the second UV set. */
export function layerNodes(uvSets: number, colors: boolean): FbxNode[] {
  const entry = (type: string, k: number) => node("LayerElement", [], [node("Type", [stringProperty(type)]), node("TypedIndex", [int(k)])]);
  const first = [entry("LayerElementNormal", 0), entry("LayerElementMaterial", 0)];
  if (uvSets > 0) first.push(entry("LayerElementUV", 0));
  if (colors) first.push(entry("LayerElementColor", 0));
  const layers = [node("Layer", [int(0)], [node("Version", [int(100)]), ...first])];
  if (uvSets > 1) layers.push(node("Layer", [int(1)], [node("Version", [int(100)]), entry("LayerElementUV", 1)]));
  return layers;
}

/** Where one corner of a triangle came from, so a layer's mapping can find its element. */
export interface CornerSource {
  /** The corner's vertex (index into Vertices). */
  vertex(corner: number): number;
  /** The corner's position in PolygonVertexIndex. */
  polygonVertex(corner: number): number;
  /** The polygon the corner's triangle came from. */
  polygon(corner: number): number;
}

/** A layer element's data, and for each triangle corner the slot (tuple index) of its value, or -1. */
export interface LayerData {
  name: string;
  data: ArrayLike<number>;
  size: number;
  slot: (corner: number) => number;
  /** For a layer mapped by vertex: the slot of a vertex, even one no corner uses. */
  vertexSlot?: (vertex: number) => number;
}

/**
 * Reads a layer element's mapping, or says why it cannot: slots index the data only where the data
 * is present (a slot past the end of the data, or an index past the end of its index array, is -1).
 */
export function readLayer(layer: FbxNode, dataName: string, indexNames: string[], size: number, corners: CornerSource): LayerData | string {
  const dataNode = child(layer, dataName);
  const p = dataNode?.properties[0];
  const data = p && (p.type === "d" || p.type === "f") ? p.value : undefined;
  if (!data) return `has no ${dataName} array`;
  for (let k = 0; k < data.length; k++) if (!Number.isFinite(data[k])) return `has non-finite ${dataName}`;
  const mapping = text(child(layer, "MappingInformationType")?.properties[0]);
  const reference = text(child(layer, "ReferenceInformationType")?.properties[0]);
  let index: Int32Array | undefined;
  if (reference === "IndexToDirect" || reference === "Index") {
    const ip = indexNames.map((n) => child(layer, n)?.properties[0]).find((q) => q !== undefined);
    if (ip?.type !== "i") return `is mapped IndexToDirect but has no int32 ${indexNames[0]}`;
    index = ip.value;
  }
  const element =
    mapping === "ByPolygonVertex" ? corners.polygonVertex
      : mapping === "ByVertice" || mapping === "ByVertex" ? corners.vertex
        : mapping === "ByPolygon" ? corners.polygon
          : mapping === "AllSame" ? () => 0
            : undefined;
  if (!element) return `is mapped "${mapping}", which Kiln does not read`;
  const count = Math.floor(data.length / size);
  const slotOf = (e: number) => {
    const n = index ? (e < index.length ? index[e] : -1) : e;
    return n >= 0 && n < count ? n : -1;
  };
  const vertexSlot = element === corners.vertex ? slotOf : undefined;
  return { name: text(child(layer, "Name")?.properties[0]), data, size, slot: (corner) => slotOf(element(corner)), vertexSlot };
}

/** The layer elements of a type in TypedIndex order (their first property). */
export function layerElements(geometry: FbxNode, type: string): FbxNode[] {
  return childrenNamed(geometry, type).sort((a, b) => Number(a.properties[0]?.value ?? 0) - Number(b.properties[0]?.value ?? 0));
}
