/**
 * Wavefront OBJ + MTL writer and reader.
 *
 * OBJ has no hierarchy, transforms, lights, cameras or animation: the writer bakes every mesh node
 * into world space as one `o` object and warns about everything else. Materials go to the .mtl
 * with `Kd`/`d` plus the de-facto PBR extension lines `Pr` (roughness) and `Pm` (metallic) that
 * Blender and assimp read. Colours are written linear, as Blender does.
 *
 * The reader is hand-written rather than three's OBJLoader/MTLLoader because (1) it keeps shared
 * vertices indexed (OBJLoader expands every triangle to three fresh vertices), (2) every statement it
 * cannot carry becomes a returned warning instead of a console message, and (3) it reads raw MTL
 * numbers with no sRGB reinterpretation. The tests still run OBJLoader as an independent reader.
 */
import { Matrix3, Vector3, type Matrix4 } from "three";
import { ByteWriter, formatFloat, MAX_FLOAT_BYTES, writeFloat, writeUint } from "./text";
import {
  computeNormals,
  rootNode,
  uniqueNames,
  unusedMeshWarnings,
  validateScene,
  worldMatrices,
  type DecodeResult,
  type EncodeResult,
  type InterchangeMaterial,
  type InterchangeMesh,
  type InterchangeScene,
} from "./interchange";

/** OBJ names end at the line break and lose surrounding blanks, so those are replaced/trimmed. */
function objName(name: string, fallback: string): string {
  return name.replace(/[\r\n\t]+/g, " ").trim() || fallback;
}

/** Writes `<baseName>.obj` and `<baseName>.mtl` with world-space geometry. */
export async function encodeObj(scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  validateScene(scene);
  const warnings: string[] = [];
  const world = worldMatrices(scene);
  const isIdentity = (i: number) => world[i].equals(world[i].clone().identity());
  if (scene.nodes.some((n, i) => n.parent !== null || !isIdentity(i))) warnings.push("obj: node hierarchy and transforms dropped (baked into world-space vertices)");
  scene.nodes.forEach((n) => {
    if (n.mesh === undefined && !n.light && !n.camera) warnings.push(`obj: empty node "${n.name}" dropped`);
    if (n.light) warnings.push(`obj: ${n.light.type} light on node "${n.name}" dropped`);
    if (n.camera) warnings.push(`obj: camera on node "${n.name}" dropped`);
  });
  for (const a of scene.animations) warnings.push(`obj: animation of node "${scene.nodes[a.node].name}" dropped (${a.times.length} keys)`);
  const meshNodes = scene.nodes.flatMap((n, i) => (n.mesh === undefined ? [] : [i]));
  const meshOf = (i: number) => scene.meshes[scene.nodes[i].mesh!];
  const renamed = [...new Set(meshNodes.filter((i) => meshOf(i).name !== scene.nodes[i].name).map((i) => meshOf(i).name))];
  if (renamed.length) warnings.push(`obj: mesh names dropped (${renamed.map((m) => `"${m}"`).join(", ")}); each mesh takes its object's name`);
  scene.meshes.forEach((m, k) => {
    const users = meshNodes.filter((i) => scene.nodes[i].mesh === k).length;
    if (users > 1) warnings.push(`obj: mesh "${m.name}" shared by ${users} nodes written once per node (instancing dropped)`);
  });
  warnings.push(...unusedMeshWarnings(scene, "obj"));
  // usemtl finds materials by name, so MTL names must also be unique.
  const mtlNames = uniqueNames(scene.materials.map((m, i) => objName(m.name, `material_${i}`)));
  const mtl: string[] = [`# Kiln MTL export: linear colours, PBR extension (Pr roughness, Pm metallic)`];
  scene.materials.forEach((m, i) => {
    if (mtlNames[i] !== m.name) warnings.push(`obj: material name "${m.name}" written as "${mtlNames[i]}"`);
    const f = formatFloat;
    mtl.push("", `newmtl ${mtlNames[i]}`, `Kd ${f(m.color[0])} ${f(m.color[1])} ${f(m.color[2])}`, `d ${f(m.color[3])}`);
    // Ns/illum serve readers without the PBR extension; Ns follows Blender's roughness mapping.
    mtl.push(`Ns ${f(1000 * (1 - m.roughness) ** 2)}`, `Pr ${f(m.roughness)}`, `Pm ${f(m.metallic)}`, "illum 2");
  });

  // `mtllib` separates several file names with blanks, so the library's own name must have none.
  const mtlFile = `${baseName.replace(/\s/g, "_")}.mtl`;
  const out = new ByteWriter(estimateObjBytes(meshNodes.map(meshOf)));
  out.line(`# Kiln OBJ export: metres, +Y up, world-space vertices`);
  out.line(`mtllib ${mtlFile}`);
  // `usemtl` persists across `o` statements, so material-less objects go first, before any usemtl.
  const ordered = [...meshNodes.filter((i) => scene.nodes[i].material === undefined), ...meshNodes.filter((i) => scene.nodes[i].material !== undefined)];
  let vertexBase = 1;
  for (const i of ordered) {
    const node = scene.nodes[i];
    const mesh = scene.meshes[node.mesh!];
    const name = objName(node.name, `object_${i}`);
    if (name !== node.name) warnings.push(`obj: node name "${node.name}" written as "${name}"`);
    out.line(`o ${name}`);
    writeVertexLines(out, mesh, world[i]);
    if (node.material !== undefined) out.line(`usemtl ${mtlNames[node.material]}`);
    // A mirroring world transform flips triangle facing; swapping two corners restores it.
    writeFaceLines(out, mesh.indices, vertexBase, mesh.positions.length / 3, world[i].determinant() < 0);
    vertexBase += mesh.positions.length / 3;
  }
  return {
    files: [
      { name: `${baseName}.obj`, bytes: out.result() },
      { name: mtlFile, bytes: new TextEncoder().encode(mtl.join("\n") + "\n") },
    ],
    warnings,
  };
}

/**
 * Room for the file, so that the writer does not grow (and copy) its buffer: generous for `v`/`vn`
 * lines (typically 30 and 10 bytes) and the most `f` lines can take.
 */
function estimateObjBytes(meshes: InterchangeMesh[]): number {
  const width = String(meshes.reduce((n, m) => n + m.positions.length / 3, 1)).length;
  return meshes.reduce((n, m) => n + 80 * (m.positions.length / 3) + (3 + 3 * (2 * width + 3)) * (m.indices.length / 3), 4096);
}

/** `v` lines with world-space positions, then `vn` lines with world-space unit normals. */
function writeVertexLines(out: ByteWriter, mesh: InterchangeMesh, world: Matrix4): void {
  const count = mesh.positions.length / 3;
  const p = new Vector3();
  for (let v = 0; v < count; v++) {
    p.fromArray(mesh.positions, v * 3).applyMatrix4(world);
    writeVectorLine(out, false, p);
  }
  const normalMatrix = new Matrix3().getNormalMatrix(world);
  for (let v = 0; v < count; v++) {
    p.fromArray(mesh.normals, v * 3).applyMatrix3(normalMatrix).normalize();
    writeVectorLine(out, true, p);
  }
}

function writeVectorLine(out: ByteWriter, normal: boolean, p: Vector3): void {
  const bytes = out.reserve(4 + 3 * (MAX_FLOAT_BYTES + 1));
  let at = out.length;
  bytes[at++] = 118; // "v"
  if (normal) bytes[at++] = 110; // "n"
  bytes[at++] = 32;
  at = writeFloat(bytes, at, p.x);
  bytes[at++] = 32;
  at = writeFloat(bytes, at, p.y);
  bytes[at++] = 32;
  at = writeFloat(bytes, at, p.z);
  bytes[at++] = 10;
  out.length = at;
}

/**
 * `f a//a b//b c//c` lines (1-based, normal index = vertex index), corners b and c swapped when
 * `mirrored`. Each vertex number is written about twelve times (two per corner, six triangles per
 * vertex), so its digits are formatted once into a table and copied from there.
 */
function writeFaceLines(out: ByteWriter, indices: Uint32Array, base: number, vertexCount: number, mirrored: boolean): void {
  const width = String(base + vertexCount).length;
  const digits = new Uint8Array(vertexCount * width);
  const lengths = new Uint8Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) lengths[v] = writeUint(digits, v * width, v + base) - v * width;
  const bytes = out.reserve((indices.length / 3) * (3 + 3 * (2 * width + 3)));
  const [second, third] = mirrored ? [2, 1] : [1, 2];
  let at = out.length;
  for (let t = 0; t < indices.length; t += 3) {
    bytes[at++] = 102; // "f"
    for (let k = 0; k < 3; k++) {
      const v = indices[t + (k === 0 ? 0 : k === 1 ? second : third)];
      const from = v * width, to = from + lengths[v];
      bytes[at++] = 32;
      for (let i = from; i < to; i++) bytes[at++] = digits[i];
      bytes[at++] = 47; // "/"
      bytes[at++] = 47;
      for (let i = from; i < to; i++) bytes[at++] = digits[i];
    }
    bytes[at++] = 10;
  }
  out.length = at;
}

/** Parses MTL text into materials keyed by name; unsupported statements become warnings. */
function parseMtl(text: string, warn: (msg: string) => void): Map<string, InterchangeMaterial> {
  const out = new Map<string, InterchangeMaterial>();
  let cur: (InterchangeMaterial & { hasPr?: boolean }) | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const key = line.split(/\s+/, 1)[0];
    const rest = line.slice(key.length).trim();
    const nums = rest.split(/\s+/).map(Number);
    switch (key.toLowerCase()) {
      case "newmtl":
        out.set(rest, (cur = { name: rest, color: [0.8, 0.8, 0.8, 1], metallic: 0, roughness: 0.5 }));
        break;
      case "kd": if (cur) cur.color = [nums[0], nums[1] ?? nums[0], nums[2] ?? nums[0], cur.color[3]]; break;
      case "d": if (cur) cur.color[3] = nums[0]; break;
      case "tr": if (cur) cur.color[3] = 1 - nums[0]; break;
      case "pr": if (cur) Object.assign(cur, { roughness: nums[0], hasPr: true }); break;
      case "pm": if (cur) cur.metallic = nums[0]; break;
      // Without Pr, derive roughness from the Phong exponent the way Blender does.
      case "ns": if (cur && !cur.hasPr) cur.roughness = 1 - Math.sqrt(Math.min(Math.max(nums[0], 0), 1000) / 1000); break;
      case "ke": if (nums.some((n) => n !== 0)) warn(`obj: material "${cur?.name}": emissive colour dropped`); break;
      // Phong-only terms with no metallic-roughness meaning: nothing to carry.
      case "ka": case "ks": case "ni": case "illum": break;
      default: warn(key.toLowerCase().startsWith("map_") || key === "bump" || key === "norm" || key === "disp"
        ? `obj: material "${cur?.name}": texture ${key} dropped`
        : `obj: MTL statement "${key}" ignored`);
    }
  }
  for (const m of out.values()) delete (m as { hasPr?: boolean }).hasPr;
  return out;
}

/** Reads an OBJ (and the MTL files it names, from `files`) into root nodes with world-space meshes. */
export async function decodeObj(files: Map<string, Uint8Array>, mainName: string): Promise<DecodeResult> {
  const main = files.get(mainName);
  if (!main) throw new Error(`obj: ${mainName} not among the given files`);
  const warnings: string[] = [];
  const warn = (msg: string) => void (warnings.includes(msg) || warnings.push(msg));
  const dec = new TextDecoder();
  const text = dec.decode(main);
  const scene: InterchangeScene = { nodes: [], meshes: [], materials: [], animations: [] };
  const mtl = new Map<string, InterchangeMaterial>();
  const materialIndex = new Map<string, number>();
  const v: number[] = [], vn: number[] = [];
  // `g` names objects only in files that never use `o` (3ds Max style); otherwise it is a sub-group.
  const groupsAreObjects = !/^o[ \t]/m.test(text);

  type Part = { name: string; material?: string; pos: number[]; nor: number[]; idx: number[]; remap: Map<number, number>; missingNormals: boolean };
  const parts: Part[] = [];
  let objectName = "";
  let material: string | undefined;
  let part: Part | undefined;
  const current = (): Part => {
    if (!part || part.material !== material) parts.push((part = { name: objectName, material, pos: [], nor: [], idx: [], remap: new Map(), missingNormals: false }));
    return part;
  };
  // Corner → vertex lookup, fast path: most files pair each position with one normal in one part,
  // so the first (part, normal) seen per position sits in typed arrays indexed by the position;
  // any other pairing goes to the part's Map. At 10⁶ triangles this replaces millions of Map
  // operations on non-integer keys.
  let claimPart = new Int32Array(0), claimNormal = new Int32Array(0), claimOut = new Int32Array(0);
  const growClaims = (size: number) => {
    const grow = <T extends Int32Array>(a: T, fill: number) => {
      const b = new Int32Array(Math.max(size, a.length * 2)).fill(fill);
      b.set(a);
      return b;
    };
    [claimPart, claimNormal, claimOut] = [grow(claimPart, -1), grow(claimNormal, 0), grow(claimOut, 0)];
  };
  const ref = (tok: string, count: number) => {
    const n = parseInt(tok, 10);
    return n < 0 ? count + n : n - 1; // negative indices count back from the latest vertex
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line[0] === "#") continue;
    const sp = line.search(/\s/);
    const key = sp < 0 ? line : line.slice(0, sp);
    const rest = sp < 0 ? "" : line.slice(sp + 1).trim();
    switch (key) {
      case "v": {
        const t = rest.split(/\s+/);
        v.push(+t[0], +t[1], +t[2]);
        if (t.length >= 6) warn("obj: vertex colours dropped");
        break;
      }
      case "vn": { const t = rest.split(/\s+/); vn.push(+t[0], +t[1], +t[2]); break; }
      case "vt": warn("obj: texture coordinates dropped"); break;
      case "f": {
        const p = current();
        const partId = parts.length - 1;
        if (claimPart.length < v.length / 3) growClaims(v.length / 3);
        const corners = rest.split(/\s+/).map((tok) => {
          const s1 = tok.indexOf("/"), s2 = s1 < 0 ? -1 : tok.indexOf("/", s1 + 1);
          const vi = s1 < 0 ? tok : tok.slice(0, s1), ni = s2 < 0 ? "" : tok.slice(s2 + 1);
          const pi = ref(vi, v.length / 3);
          if (!(pi >= 0 && pi < v.length / 3)) throw new Error(`obj: face corner "${tok}" references a missing vertex`);
          const nIdx = ni ? ref(ni, vn.length / 3) : -1;
          if (claimPart[pi] === partId && claimNormal[pi] === nIdx) return claimOut[pi];
          const key = pi * 67108864 + (nIdx + 1); // 2^26 normals per file is far beyond practical
          let out = p.remap.get(key);
          if (out === undefined) {
            out = p.pos.length / 3;
            if (claimPart[pi] === -1) [claimPart[pi], claimNormal[pi], claimOut[pi]] = [partId, nIdx, out];
            else p.remap.set(key, out);
            p.pos.push(v[pi * 3], v[pi * 3 + 1], v[pi * 3 + 2]);
            if (nIdx < 0) p.missingNormals = true;
            p.nor.push(vn[nIdx * 3] ?? 0, vn[nIdx * 3 + 1] ?? 0, vn[nIdx * 3 + 2] ?? 0);
          }
          return out;
        });
        if (corners.length > 3) warn("obj: polygons with more than 3 corners triangulated as fans");
        for (let k = 1; k + 1 < corners.length; k++) p.idx.push(corners[0], corners[k], corners[k + 1]);
        break;
      }
      case "o": objectName = rest; part = undefined; break;
      case "g": if (groupsAreObjects) { objectName = rest; part = undefined; } else if (rest) warn("obj: groups (g) merged into their objects"); break;
      case "usemtl": material = rest; break;
      case "mtllib":
        for (const lib of files.has(rest) ? [rest] : rest.split(/\s+/)) {
          const bytes = files.get(lib);
          if (!bytes) warn(`obj: material library "${lib}" not provided; its materials dropped`);
          else for (const [k, m] of parseMtl(dec.decode(bytes), warn)) {
            // Every defined material is kept, used or not, so an encode → decode round trip loses none.
            mtl.set(k, m);
            materialIndex.set(k, scene.materials.push(m) - 1);
          }
        }
        break;
      case "s": break; // smoothing groups only matter without vn, and then normals are computed smooth
      case "l": case "p": warn(`obj: ${key === "l" ? "lines" : "points"} dropped`); break;
      default: warn(`obj: statement "${key}" ignored`);
    }
  }
  const partsPerObject = new Map<string, number>();
  for (const p of parts) {
    if (p.idx.length === 0) continue;
    const seen = partsPerObject.get(p.name) ?? 0;
    partsPerObject.set(p.name, seen + 1);
    // An interchange node has one material, so an object using several becomes several nodes.
    const name = seen === 0 ? p.name : `${p.name}_${seen + 1}`;
    if (seen > 0) warn(`obj: object "${p.name}" uses several materials; split into nodes "${p.name}", "${name}", …`);
    const positions = Float32Array.from(p.pos);
    const indices = Uint32Array.from(p.idx);
    if (p.missingNormals) warn(`obj: object "${p.name}" had faces without normals; smooth normals computed`);
    const normals = p.missingNormals ? computeNormals(positions, indices) : Float32Array.from(p.nor);
    const node = { ...rootNode(name), mesh: scene.meshes.push({ name, positions, normals, indices }) - 1 };
    if (p.material !== undefined) {
      const m = mtl.get(p.material);
      if (!m) warn(`obj: material "${p.material}" not defined in any MTL; dropped`);
      else Object.assign(node, { material: materialIndex.get(p.material) });
    }
    scene.nodes.push(node);
  }
  return { scene, warnings };
}
