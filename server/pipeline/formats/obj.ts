/**
 * Wavefront OBJ + MTL writer (the reader, `decodeObj`, is in obj-read.ts and re-exported here).
 *
 * OBJ has no hierarchy, transforms, lights, cameras or animation: the writer bakes every mesh node
 * into world space as one `o` object and warns about everything else. What it does carry of
 * issue 15's asset data:
 * - the first UV set as `vt` lines, V flipped (OBJ's origin is bottom left, the interchange
 *   model's glTF's top left), and faces `v/vt/vn`; a second set is dropped with a warning;
 * - vertex colours as `v x y z r g b`, the extension Blender reads and writes, in sRGB as Blender
 *   reads them (its importer converts them to linear); alpha is dropped with a warning;
 * - material slots as a `usemtl` before each group's faces;
 * - materials and texture maps in the .mtl (mtl.ts), with the images written beside the file.
 */
import { Matrix3, Vector3, type Matrix4 } from "three";
import { ByteWriter, MAX_FLOAT_BYTES, writeFloat, writeUint } from "./text";
import {
  uniqueNames,
  unusedMeshWarnings,
  validateScene,
  worldMatrices,
  type EncodeResult,
  type InterchangeMesh,
  type InterchangeScene,
} from "./interchange";
import { writeMtl } from "./mtl";
import { imageFileNames } from "./side-images";

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
  scene.materials.forEach((m, i) => mtlNames[i] !== m.name && warnings.push(`obj: material name "${m.name}" written as "${mtlNames[i]}"`));
  const imageFiles = imageFileNames(scene, baseName.replace(/\s/g, "_"));
  const mtl = writeMtl(scene, mtlNames, imageFiles, warnings);
  const usedImages = new Set(scene.materials.flatMap((m) => Object.entries(m.textures ?? {}).flatMap(([slot, t]) => (slot === "occlusion" ? [] : [t.image]))));

  // `mtllib` separates several file names with blanks, so the library's own name must have none.
  const mtlFile = `${baseName.replace(/\s/g, "_")}.mtl`;
  const out = new ByteWriter(estimateObjBytes(meshNodes.map(meshOf)));
  out.line(`# Kiln OBJ export: metres, +Y up, world-space vertices, sRGB vertex colours`);
  out.line(`mtllib ${mtlFile}`);
  // `usemtl` persists across `o` statements, so objects whose first faces have no material go
  // first, before any usemtl.
  const slots = (i: number) => {
    const n = scene.nodes[i];
    return scene.meshes[n.mesh!].groups ? (n.materials ?? []) : [n.material];
  };
  const unset = (m: number | null | undefined) => m === undefined || m === null;
  const rank = (i: number) => (slots(i).every(unset) ? 0 : unset(slots(i)[0]) ? 1 : 2);
  const ordered = [0, 1, 2].flatMap((r) => meshNodes.filter((i) => rank(i) === r));
  let vertexBase = 1;
  let current: number | undefined;
  for (const i of ordered) {
    const node = scene.nodes[i];
    const mesh = scene.meshes[node.mesh!];
    const name = objName(node.name, `object_${i}`);
    if (name !== node.name) warnings.push(`obj: node name "${node.name}" written as "${name}"`);
    if ((mesh.uvs?.length ?? 0) > 1) warnings.push(`obj: second UV set of mesh "${mesh.name}" dropped (OBJ has one)`);
    if (mesh.colors && mesh.colors.some((a, k) => k % 4 === 3 && a !== 1)) warnings.push(`obj: vertex colour alpha of mesh "${mesh.name}" dropped`);
    out.line(`o ${name}`);
    writeVertexLines(out, mesh, world[i]);
    const groups = mesh.groups ?? [{ start: 0, count: mesh.indices.length }];
    const materials = slots(i);
    let filled = false;
    const segments = groups.map((g, k) => {
      const m = unset(materials[k]) ? current : materials[k]!;
      if (unset(materials[k]) && m !== undefined) filled = true;
      current = m;
      // Each group gets its own usemtl (even a repeated material), so its slot reads back.
      return { start: g.start, end: g.start + g.count, header: m === undefined ? undefined : `usemtl ${mtlNames[m]}` };
    });
    if (filled) warnings.push(`obj: empty material slots of "${node.name}" take the material before them (OBJ cannot unset a material)`);
    // Only a usemtl starts a slot, so empty slots before the first material merge into one.
    if (segments.filter((g) => g.header === undefined).length > 1) warnings.push(`obj: empty material slots of "${node.name}" merged into one (OBJ starts a slot with a material only)`);
    // A mirroring world transform flips triangle facing; swapping two corners restores it.
    writeFaceLines(out, mesh.indices, segments, vertexBase, mesh.positions.length / 3, world[i].determinant() < 0, !!mesh.uvs?.length);
    vertexBase += mesh.positions.length / 3;
  }
  return {
    files: [
      { name: `${baseName}.obj`, bytes: out.result() },
      { name: mtlFile, bytes: new TextEncoder().encode(mtl) },
      ...(scene.images ?? []).flatMap((img, k) => (usedImages.has(k) ? [{ name: imageFiles[k], bytes: img.bytes }] : [])),
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
  const vertexBytes = (m: InterchangeMesh) => 80 + (m.uvs ? 25 : 0) + (m.colors ? 30 : 0);
  return meshes.reduce((n, m) => n + vertexBytes(m) * (m.positions.length / 3) + (3 + 3 * (3 * width + 3)) * (m.indices.length / 3), 4096);
}

/** Linear → sRGB for one colour channel (what OBJ readers such as Blender's take vertex colours as). */
const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055);

/**
 * `v` lines with world-space positions (and sRGB colours), `vt` lines with the first UV set (V
 * up), then `vn` lines with world-space unit normals.
 */
function writeVertexLines(out: ByteWriter, mesh: InterchangeMesh, world: Matrix4): void {
  const count = mesh.positions.length / 3;
  const p = new Vector3();
  const colors = mesh.colors;
  for (let v = 0; v < count; v++) {
    p.fromArray(mesh.positions, v * 3).applyMatrix4(world);
    writeVectorLine(out, 0, p, colors && [toSrgb(colors[4 * v]), toSrgb(colors[4 * v + 1]), toSrgb(colors[4 * v + 2])]);
  }
  const uv = mesh.uvs?.[0];
  if (uv) {
    for (let v = 0; v < count; v++) {
      const bytes = out.reserve(4 + 2 * (MAX_FLOAT_BYTES + 1));
      let at = out.length;
      bytes[at++] = 118; // "v"
      bytes[at++] = 116; // "t"
      bytes[at++] = 32;
      at = writeFloat(bytes, at, uv[2 * v]);
      bytes[at++] = 32;
      at = writeFloat(bytes, at, 1 - uv[2 * v + 1]);
      bytes[at++] = 10;
      out.length = at;
    }
  }
  const normalMatrix = new Matrix3().getNormalMatrix(world);
  for (let v = 0; v < count; v++) {
    p.fromArray(mesh.normals, v * 3).applyMatrix3(normalMatrix).normalize();
    writeVectorLine(out, 110, p);
  }
}

/** `v x y z [r g b]` (second letter 0) or `vn x y z` (second letter "n"). */
function writeVectorLine(out: ByteWriter, second: number, p: Vector3, rgb?: number[]): void {
  const bytes = out.reserve(4 + 6 * (MAX_FLOAT_BYTES + 1));
  let at = out.length;
  bytes[at++] = 118; // "v"
  if (second) bytes[at++] = second;
  bytes[at++] = 32;
  at = writeFloat(bytes, at, p.x);
  bytes[at++] = 32;
  at = writeFloat(bytes, at, p.y);
  bytes[at++] = 32;
  at = writeFloat(bytes, at, p.z);
  for (const c of rgb ?? []) {
    bytes[at++] = 32;
    at = writeFloat(bytes, at, c);
  }
  bytes[at++] = 10;
  out.length = at;
}

/**
 * `f a//a b//b c//c` lines (`a/a/a` with UVs; 1-based, UV and normal index = vertex index) for
 * each segment of the indices, after its header line (a `usemtl`), corners b and c swapped when
 * `mirrored`. Each vertex number is written about twelve times (two or three per corner, six
 * triangles per vertex), so its digits are formatted once into a table and copied from there.
 */
function writeFaceLines(out: ByteWriter, indices: Uint32Array, segments: { start: number; end: number; header?: string }[], base: number, vertexCount: number, mirrored: boolean, uv: boolean): void {
  const width = String(base + vertexCount).length;
  const digits = new Uint8Array(vertexCount * width);
  const lengths = new Uint8Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) lengths[v] = writeUint(digits, v * width, v + base) - v * width;
  const [second, third] = mirrored ? [2, 1] : [1, 2];
  for (const { start, end, header } of segments) {
    if (header !== undefined) out.line(header);
    const bytes = out.reserve(((end - start) / 3) * (3 + 3 * (3 * width + 3)));
    let at = out.length;
    for (let t = start; t < end; t += 3) {
      bytes[at++] = 102; // "f"
      for (let k = 0; k < 3; k++) {
        const v = indices[t + (k === 0 ? 0 : k === 1 ? second : third)];
        const from = v * width, to = from + lengths[v];
        bytes[at++] = 32;
        for (let i = from; i < to; i++) bytes[at++] = digits[i];
        bytes[at++] = 47; // "/"
        if (uv) for (let i = from; i < to; i++) bytes[at++] = digits[i];
        bytes[at++] = 47;
        for (let i = from; i < to; i++) bytes[at++] = digits[i];
      }
      bytes[at++] = 10;
    }
    out.length = at;
  }
}
