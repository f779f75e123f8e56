/**
 * Wavefront OBJ + MTL writer (the reader, `decodeObj`, is in obj-read.ts and re-exported here).
 *
 * OBJ has no hierarchy, transforms, lights, cameras or animation: the writer bakes every mesh node
 * into world space as one `o` object and warns about everything else. Materials go to the .mtl
 * with `Kd`/`d` plus the de-facto PBR extension lines `Pr` (roughness) and `Pm` (metallic) that
 * Blender and assimp read. Colours are written linear, as Blender does.
 */
import { Matrix3, Vector3, type Matrix4 } from "three";
import { ByteWriter, formatFloat, MAX_FLOAT_BYTES, writeFloat, writeUint } from "./text";
import {
  uniqueNames,
  unusedMeshWarnings,
  validateScene,
  worldMatrices,
  type EncodeResult,
  type InterchangeMesh,
  type InterchangeScene,
} from "./interchange";

export { decodeObj } from "./obj-read";

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

