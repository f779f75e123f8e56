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
import { Matrix3, Vector3 } from "three";
import { formatFloat } from "./text";
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
  const out: (string | Uint8Array)[] = [`# Kiln OBJ export: metres, +Y up, world-space vertices`, `mtllib ${mtlFile}`];
  // `usemtl` persists across `o` statements, so material-less objects go first, before any usemtl.
  const ordered = [...meshNodes.filter((i) => scene.nodes[i].material === undefined), ...meshNodes.filter((i) => scene.nodes[i].material !== undefined)];
  let vertexBase = 1;
  const p = new Vector3();
  const normalMatrix = new Matrix3();
  for (const i of ordered) {
    const node = scene.nodes[i];
    const mesh = scene.meshes[node.mesh!];
    const name = objName(node.name, `object_${i}`);
    if (name !== node.name) warnings.push(`obj: node name "${node.name}" written as "${name}"`);
    out.push(`o ${name}`);
    normalMatrix.getNormalMatrix(world[i]);
    const count = mesh.positions.length / 3;
    const lines: string[] = new Array(count * 2);
    for (let v = 0; v < count; v++) {
      p.fromArray(mesh.positions, v * 3).applyMatrix4(world[i]);
      lines[v] = `v ${formatFloat(p.x)} ${formatFloat(p.y)} ${formatFloat(p.z)}`;
      p.fromArray(mesh.normals, v * 3).applyMatrix3(normalMatrix).normalize();
      lines[count + v] = `vn ${formatFloat(p.x)} ${formatFloat(p.y)} ${formatFloat(p.z)}`;
    }
    out.push(lines.join("\n"));
    if (node.material !== undefined) out.push(`usemtl ${mtlNames[node.material]}`);
    // A mirroring world transform flips triangle facing; swapping two corners restores it.
    const mirrored = world[i].determinant() < 0;
    out.push(faceLines(mesh.indices, vertexBase, mirrored));
    vertexBase += count;
  }
  const enc = new TextEncoder();
  return {
    files: [
      { name: `${baseName}.obj`, bytes: joinLines(out) },
      { name: mtlFile, bytes: enc.encode(mtl.join("\n") + "\n") },
    ],
    warnings,
  };
}

/**
 * `f a//a b//b c//c` lines (1-based, normal index = vertex index) written straight into bytes,
 * corners b and c swapped when `mirrored`. At 10⁶ triangles, building them as template strings
 * and joining them took most of the export's time.
 */
function faceLines(indices: Uint32Array, base: number, mirrored: boolean): Uint8Array {
  let max = base;
  for (let i = 0; i < indices.length; i++) if (indices[i] + base > max) max = indices[i] + base;
  const digits = String(max).length;
  const buf = new Uint8Array((indices.length / 3) * (3 + 3 * (2 * digits + 3)));
  const tmp = new Uint8Array(10);
  let at = 0;
  const int = (n: number) => {
    let k = 0;
    do {
      tmp[k++] = 48 + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
    while (k > 0) buf[at++] = tmp[--k];
  };
  for (let t = 0; t < indices.length; t += 3) {
    if (t > 0) buf[at++] = 10; // "\n"
    buf[at++] = 102; // "f"
    for (const k of mirrored ? [0, 2, 1] : [0, 1, 2]) {
      const v = indices[t + k] + base;
      buf[at++] = 32;
      int(v);
      buf[at++] = 47;
      buf[at++] = 47;
      int(v);
    }
  }
  return buf.subarray(0, at);
}

/** Lines (text or already-encoded bytes) joined with "\n" and ended by one, as UTF-8 bytes. */
function joinLines(parts: (string | Uint8Array)[]): Uint8Array {
  const enc = new TextEncoder();
  const chunks = parts.map((p) => (typeof p === "string" ? enc.encode(p) : p));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length + 1, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    out[at + c.length] = 10;
    at += c.length + 1;
  }
  return out;
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
