/**
 * glTF budget check, run on the JSON before @gltf-transform reads a byte of data: every length a
 * file declares (buffers, buffer views, accessors, images) must fit in the bytes it actually
 * holds, accessors without data (zero-filled) are capped, and the node tree is walked without
 * recursion for cycles and depth. gltf-transform trusts these numbers and allocates from them;
 * an accessor claiming 2 billion elements, or a 100,000-deep node chain, must be refused here.
 */
import { budget, LIMITS } from "./limits";

/** The parts of a glTF document this check reads. */
interface GltfJson {
  buffers?: { byteLength?: unknown; uri?: unknown }[];
  bufferViews?: { buffer?: unknown; byteOffset?: unknown; byteLength?: unknown; byteStride?: unknown }[];
  accessors?: {
    bufferView?: unknown; byteOffset?: unknown; count?: unknown; type?: unknown; componentType?: unknown;
    sparse?: { count?: unknown; indices?: { bufferView?: unknown; componentType?: unknown }; values?: { bufferView?: unknown } };
  }[];
  nodes?: { children?: unknown }[];
  images?: { bufferView?: unknown }[];
}

const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
/** Zero-filled accessors (no bufferView) cost memory without costing file: capped in total. */
const MAX_ZERO_FILLED_BYTES = 64 * 2 ** 20;

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const index = (v: unknown, n: number, what: string): number => {
  budget(typeof v === "number" && Number.isInteger(v) && v >= 0 && v < n, `gltf: ${what} refers to ${String(v)} of ${n}`);
  return v as number;
};

/** The JSON and binary chunk of a GLB, with the container's own lengths checked against the file. */
export function splitGlb(bytes: Uint8Array): { json: unknown; bin: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  budget(bytes.length >= 20 && view.getUint32(0, true) === 0x46546c67, "gltf: not a GLB file (no glTF header)");
  budget(view.getUint32(8, true) <= bytes.length, `gltf: the GLB header declares ${view.getUint32(8, true)} bytes but the file holds ${bytes.length}`);
  let at = 12, json: unknown, bin = 0;
  while (at + 8 <= bytes.length) {
    const length = view.getUint32(at, true), type = view.getUint32(at + 4, true);
    budget(at + 8 + length <= bytes.length, `gltf: a GLB chunk declares ${length} bytes beyond the end of the file`);
    if (type === 0x4e4f534a && json === undefined) {
      try {
        json = JSON.parse(new TextDecoder().decode(bytes.subarray(at + 8, at + 8 + length)));
      } catch (e) {
        throw new Error(`gltf: the JSON chunk is not JSON (${(e as Error).message})`);
      }
    } else if (type === 0x004e4942) bin = length;
    at += 8 + length + ((4 - (length % 4)) % 4);
  }
  budget(json !== undefined, "gltf: the GLB has no JSON chunk");
  return { json, bin };
}

/** Bytes a buffer's URI holds: data URIs decoded in size only, other files from `resources`. */
function heldBytes(uri: unknown, bin: number, resources: Map<string, Uint8Array>): number {
  if (uri === undefined) return bin;
  if (typeof uri !== "string") return 0;
  if (uri.startsWith("data:")) {
    const comma = uri.indexOf(",");
    return uri.slice(0, comma).endsWith(";base64") ? Math.floor(((uri.length - comma - 1) * 3) / 4) : uri.length - comma - 1;
  }
  let name = uri;
  try {
    name = decodeURIComponent(uri);
  } catch { /* kept as written */ }
  return resources.get(name)?.length ?? resources.get(uri)?.length ?? 0;
}

/** Checks the declared sizes and node tree of a glTF document (see the module comment). */
export function checkGltfBudget(doc: unknown, bin: number, resources: Map<string, Uint8Array>): void {
  budget(typeof doc === "object" && doc !== null && !Array.isArray(doc), "gltf: the JSON is not an object");
  const json = doc as GltfJson;
  const list = <T>(v: T[] | undefined, what: string): T[] => {
    budget(v === undefined || Array.isArray(v), `gltf: ${what} is not an array`);
    return v ?? [];
  };
  const buffers = list(json.buffers, "buffers").map((b, i) => {
    const length = b?.byteLength ?? 0; // gltf-transform leaves it out of an empty buffer
    budget(isCount(length), `gltf: buffer ${i} has no valid byteLength`);
    const held = heldBytes(b.uri, bin, resources);
    budget(length <= held, `gltf: buffer ${i} declares ${length} bytes but the file holds ${held}`);
    return length;
  });
  const views = list(json.bufferViews, "bufferViews").map((v, i) => {
    const buffer = index(v?.buffer, buffers.length, `bufferView ${i}`);
    const offset = v.byteOffset ?? 0;
    budget(isCount(offset) && isCount(v.byteLength) && offset + v.byteLength <= buffers[buffer],
      `gltf: bufferView ${i} (offset ${String(offset)}, ${String(v.byteLength)} bytes) reaches beyond its buffer of ${buffers[buffer]} bytes`);
    budget(v.byteStride === undefined || (isCount(v.byteStride) && v.byteStride >= 4 && v.byteStride <= 252), `gltf: bufferView ${i} has an invalid byteStride`);
    return { length: v.byteLength, stride: v.byteStride as number | undefined };
  });
  let zeroFilled = 0;
  list(json.accessors, "accessors").forEach((a, i) => {
    const components = COMPONENTS[String(a?.type)], size = COMPONENT_BYTES[Number(a?.componentType)];
    budget(components !== undefined && size !== undefined && isCount(a.count), `gltf: accessor ${i} has an invalid type, componentType or count`);
    const element = components * size, count = a.count as number;
    if (a.bufferView === undefined) {
      zeroFilled += count * element;
      budget(zeroFilled <= MAX_ZERO_FILLED_BYTES, `gltf: accessors without data declare more than ${MAX_ZERO_FILLED_BYTES} bytes`);
    } else {
      const view = views[index(a.bufferView, views.length, `accessor ${i}`)];
      const offset = a.byteOffset ?? 0;
      budget(isCount(offset), `gltf: accessor ${i} has an invalid byteOffset`);
      const needed = count === 0 ? 0 : offset + (count - 1) * (view.stride ?? element) + element;
      budget(needed <= view.length, `gltf: accessor ${i} declares ${count} elements (${needed} bytes) but its bufferView holds ${view.length} bytes`);
    }
    if (a.sparse !== undefined) {
      budget(isCount(a.sparse.count) && a.sparse.count <= count, `gltf: accessor ${i} has an invalid sparse count`);
      const sparseCount = a.sparse.count as number;
      const indexBytes = COMPONENT_BYTES[Number(a.sparse.indices?.componentType)] ?? 4;
      budget(sparseCount * indexBytes <= views[index(a.sparse.indices?.bufferView, views.length, `accessor ${i} sparse indices`)].length, `gltf: accessor ${i} sparse indices reach beyond their bufferView`);
      budget(sparseCount * element <= views[index(a.sparse.values?.bufferView, views.length, `accessor ${i} sparse values`)].length, `gltf: accessor ${i} sparse values reach beyond their bufferView`);
    }
  });
  list(json.images, "images").forEach((img, i) => img?.bufferView === undefined || index(img.bufferView, views.length, `image ${i}`));
  checkNodeTree(list(json.nodes, "nodes"));
}

/** Node count, valid children, no node with two parents or in a cycle, depth capped: iteratively. */
function checkNodeTree(nodes: { children?: unknown }[]): void {
  budget(nodes.length <= LIMITS.nodes, `gltf: the file has ${nodes.length} nodes; at most ${LIMITS.nodes} are read`);
  const parent = new Int32Array(nodes.length).fill(-1);
  nodes.forEach((n, i) => {
    const children = n?.children ?? [];
    budget(Array.isArray(children), `gltf: node ${i} children is not an array`);
    for (const c of children as unknown[]) {
      const k = index(c, nodes.length, `node ${i} children`);
      budget(parent[k] === -1 && k !== i, `gltf: node ${k} has more than one parent`);
      parent[k] = i;
    }
  });
  const depth = new Int32Array(nodes.length); // 0: not yet known
  for (let i = 0; i < nodes.length; i++) {
    const chain: number[] = [];
    let at = i;
    while (at >= 0 && depth[at] === 0) {
      budget(chain.length <= LIMITS.hierarchyDepth, `gltf: nodes nest deeper than ${LIMITS.hierarchyDepth} levels (or form a cycle)`);
      chain.push(at);
      at = parent[at];
    }
    let d = at < 0 ? 0 : depth[at];
    for (let k = chain.length - 1; k >= 0; k--) depth[chain[k]] = ++d;
    budget(d <= LIMITS.hierarchyDepth, `gltf: nodes nest deeper than ${LIMITS.hierarchyDepth} levels (node ${i} is ${d} deep)`);
  }
}
