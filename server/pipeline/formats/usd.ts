/**
 * USD writer producing USDA text. Hand-written because no npm package writes a plain USDA layer:
 * three's USDZExporter only produces zipped .usdz packages for AR viewers, writes no lights and
 * keeps no original names (it renames objects to unique identifiers).
 *
 * Layout (the reader in usd-read.ts parses exactly this, plus common variants):
 *   /<Base>                Xform, defaultPrim, customData.kilnSceneRoot
 *     <node>               Xform per node: translate (double3), orient (quatf), scale (float3)
 *       <mesh>             Mesh attachment: points, normals (vertex), triangles, material:binding,
 *                          primvars:st/st1 (texCoord2f, vertex, V up), primvars:displayColor and
 *                          displayOpacity (vertex colours, linear), doubleSided; SkelBindingAPI
 *                          (skel:skeleton, jointIndices/jointWeights, skel:blendShapes)
 *         slot_<k>         GeomSubset per material slot (familyName materialBind), material:binding
 *         <target>         BlendShape per morph target
 *       <skeleton>         Skeleton (+ SkelAnimation "Animation") whose joints hang below this node
 *                          (usd-skel.ts: joint nodes are the Skeleton's joints, not Xforms)
 *       Light              DistantLight / SphereLight (treatAsPoint; ShapingAPI cone for spots)
 *       Camera             Camera (16:9 apertures, focalLength from the vertical field of view)
 *       <child nodes>
 *     Materials            Scope of UsdPreviewSurface materials (usd-shading.ts), texture images
 *                          written beside the .usda
 * Prim names must be identifiers, so names are sanitised and the original kept in
 * customData.kilnName whenever it differs. Custom properties ride in customData.userProperties
 * (usd-properties.ts): a node's on its Xform, a mesh's on its Mesh prim (never the same prim, so
 * they stay apart), a material's on its Material; joints' on their Skeleton (usd-skel.ts). Animation is time-sampled xformOps (joints: SkelAnimation).
 * With skins or morph targets the root prim is a SkelRoot.
 */
import { formatFloat as f } from "./text";
import { meaninglessLightFieldWarnings, uniqueNames, unusedMeshWarnings, validateScene, type EncodeResult, type InterchangeMesh, type InterchangeScene } from "./interchange";
import { imageFileNames } from "./side-images";
import { materialLines } from "./usd-shading";
import { userPropertiesData } from "./usd-properties";
import { meshSkelLines, planSkeletons, skeletonLines } from "./usd-skel";

/** Time codes per second written to the layer; key times are seconds × this. */
export const USD_TIME_CODES_PER_SECOND = 24;
/** Vertical aperture written for cameras (USD's default horizontal aperture × 9/16). */
export const USD_VERTICAL_APERTURE = 20.955 * (9 / 16);
const MAX_FAR = 1e9;

/** Turns any name into a USD prim identifier ([A-Za-z_][A-Za-z0-9_]*). */
export function usdIdentifier(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[A-Za-z_]/.test(id) ? id : `_${id}`;
}

/** USDA string literal (TfEscapeString-compatible escapes). */
export function usdString(s: string): string {
  const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\" };
  const escaped = s.replace(/[\x00-\x1f"\\]/g, (c) => named[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return `"${escaped}"`;
}

const tuple = (v: ArrayLike<number>) => `(${Array.from(v, f).join(", ")})`;
/** USD quaternions are written real part first: (w, x, y, z). */
const quat = (q: ArrayLike<number>) => tuple([q[3], q[0], q[1], q[2]]);

/** `[(u, 1 - v), …]`: USD's UV origin is bottom left, the interchange model's top left. */
function uvArray(a: Float32Array): string {
  const parts: string[] = new Array(a.length / 2);
  for (let i = 0; i < a.length; i += 2) parts[i / 2] = `(${f(a[i])}, ${f(1 - a[i + 1])})`;
  return `[${parts.join(", ")}]`;
}

/** Vertex colours: RGB triples, and the alphas when any is not 1. */
function colorArrays(a: Float32Array): { rgb: string; alpha?: string } {
  const rgb: string[] = new Array(a.length / 4), alpha: string[] = new Array(a.length / 4);
  let opaque = true;
  for (let i = 0; i < a.length; i += 4) {
    rgb[i / 4] = `(${f(a[i])}, ${f(a[i + 1])}, ${f(a[i + 2])})`;
    alpha[i / 4] = f(a[i + 3]);
    if (a[i + 3] !== 1) opaque = false;
  }
  return { rgb: `[${rgb.join(", ")}]`, ...(opaque ? {} : { alpha: `[${alpha.join(", ")}]` }) };
}

/** Primvar lines of a mesh: UV sets and vertex colours, all per vertex as the interchange model holds them. */
function primvarLines(m: InterchangeMesh, q: string): string[] {
  const vertex = ` (\n${q}    interpolation = "vertex"\n${q})`;
  const out = (m.uvs ?? []).map((uv, k) => `${q}texCoord2f[] primvars:${k ? "st1" : "st"} = ${uvArray(uv)}${vertex}`);
  if (m.colors) {
    const { rgb, alpha } = colorArrays(m.colors);
    out.push(`${q}color3f[] primvars:displayColor = ${rgb}${vertex}`);
    if (alpha) out.push(`${q}float[] primvars:displayOpacity = ${alpha}${vertex}`);
  }
  return out;
}

function vec3Array(a: Float32Array): string {
  const parts: string[] = new Array(a.length / 3);
  for (let i = 0; i < a.length; i += 3) parts[i / 3] = `(${f(a[i])}, ${f(a[i + 1])}, ${f(a[i + 2])})`;
  return `[${parts.join(", ")}]`;
}

/** Prim metadata block carrying customData entries (already typed, e.g. `string kilnName = "x"`). */
function meta(pad: string, entries: string[], extra: string[] = []): string {
  const lines = [...extra];
  // Dictionary entries span lines; their continuation lines are indented with them.
  if (entries.length) lines.push(`customData = {\n${entries.map((e) => `${pad}        ${e.replace(/\n/g, `\n${pad}        `)}`).join("\n")}\n${pad}    }`);
  return lines.length ? ` (\n${lines.map((l) => `${pad}    ${l}`).join("\n")}\n${pad})` : "";
}

/** Writes `<baseName>.usda`. */
export async function encodeUsd(scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  validateScene(scene);
  const warnings = [...unusedMeshWarnings(scene, "usd"), ...meaninglessLightFieldWarnings(scene, "usd")];
  const rootName = usdIdentifier(baseName);
  const nameData = (name: string, id: string) => (name === id ? [] : [`string kilnName = ${usdString(name)}`]);

  const materialIds = uniqueNames(scene.materials.map((m) => usdIdentifier(m.name)));
  const imageFiles = imageFileNames(scene, baseName.replace(/[^A-Za-z0-9._-]/g, "_"));
  const usedImages = new Set(scene.materials.flatMap((m) => Object.values(m.textures ?? {}).map((t) => t.image)));
  const materialPath = (k: number) => `/${rootName}/Materials/${materialIds[k]}`;
  const meshUsers = scene.meshes.map((_, k) => scene.nodes.filter((n) => n.mesh === k).length);

  // Animated channels per node; USD holds one time-sample set per attribute, so later clashes drop.
  const samples = new Map<string, { times: number[]; values: number[][] }>();
  for (const a of scene.animations) {
    for (const [ch, op] of [["translations", "translate"], ["rotations", "orient"], ["scales", "scale"]] as const) {
      const values = a[ch];
      if (!values) continue;
      const key = `${a.node}/${op}`;
      if (samples.has(key)) warnings.push(`usd: second ${op} animation of node "${scene.nodes[a.node].name}" dropped (one time-sample set per attribute)`);
      else samples.set(key, { times: a.times, values });
    }
  }
  const skel = planSkeletons(scene, (msg) => warnings.push(msg));
  // Joint nodes are written as their Skeleton's joints; nodes moved out from under joints change parent.
  const children = scene.nodes.map(() => [] as number[]);
  const roots: number[] = [];
  scene.nodes.forEach((n, i) => {
    if (skel.jointOf.has(i)) return;
    const parent = skel.moved.has(i) ? skel.moved.get(i)!.parent : n.parent;
    (parent === null ? roots : children[parent]).push(i);
  });
  for (const i of skel.moved.keys()) for (const op of ["translate", "orient", "scale"]) samples.delete(`${i}/${op}`);
  const skeletonsUnder = (parent: number | null) => skel.skeletons.flatMap((s, k) => (s.parent === parent ? [k] : []));
  // Skeleton paths are known once written; meshes bind them through this placeholder.
  const skeletonPaths: string[] = [];
  const skeletonRef = (k: number) => `\u0001${k}\u0001`;
  const writeSkeleton = (k: number, pad: string, parentPath: string, id: string) => {
    skeletonPaths[k] = `${parentPath}/${id}`;
    out.push("", ...skeletonLines(scene, skel.skeletons[k], id, skeletonPaths[k], pad));
  };

  const out: string[] = [];
  const writeOp = (pad: string, i: number, type: string, op: "translate" | "orient" | "scale", value: ArrayLike<number>) => {
    const fmt = op === "orient" ? quat : tuple;
    out.push(`${pad}${type} xformOp:${op} = ${fmt(value)}`);
    const s = samples.get(`${i}/${op}`);
    if (s) {
      const keys = s.times.map((t, k) => `${pad}    ${f(t * USD_TIME_CODES_PER_SECOND)}: ${fmt(s.values[k])},`);
      out.push(`${pad}${type} xformOp:${op}.timeSamples = {\n${keys.join("\n")}\n${pad}}`);
    }
  };
  const writeNode = (i: number, pad: string, id: string, path: string) => {
    const n = scene.nodes[i];
    const trs = skel.moved.get(i)?.trs ?? n;
    out.push(`${pad}def Xform "${id}"${meta(pad, [...nameData(n.name, id), ...userPropertiesData(n.extras)])}`, `${pad}{`);
    const p = pad + "    ";
    writeOp(p, i, "double3", "translate", trs.translation);
    writeOp(p, i, "quatf", "orient", trs.rotation);
    writeOp(p, i, "float3", "scale", trs.scale);
    out.push(`${p}uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient", "xformOp:scale"]`);
    // Attachment prims come first so child node names get suffixed on a clash, not them.
    const attachments = [n.mesh !== undefined && usdIdentifier(scene.meshes[n.mesh].name), n.light && "Light", n.camera && "Camera"].filter((x): x is string => !!x);
    const skeletons = skeletonsUnder(i);
    const ids = uniqueNames([...attachments, ...skeletons.map((k) => usdIdentifier(skel.skeletons[k].name)), ...children[i].map((c) => usdIdentifier(scene.nodes[c].name))]);
    let next = 0;
    if (n.mesh !== undefined) {
      const m = scene.meshes[n.mesh];
      const id = ids[next++];
      const skinning = meshSkelLines(scene, skel, i, `${path}/${id}`, skeletonRef, p + "    ");
      const data = [...nameData(m.name, id), ...(meshUsers[n.mesh] > 1 ? [`int kilnMesh = ${n.mesh}`] : []), ...(skinning?.data ?? []), ...userPropertiesData(m.extras)];
      const slots = m.groups ? (n.materials ?? []) : [n.material];
      // The mesh's own binding is what subsets without one show (USD's rule), so a mesh with an
      // empty slot has none: the first slot's material would fill the empty one.
      const bound = slots.some((k) => k === undefined || k === null) ? undefined : slots[0] ?? undefined;
      const schemas = [...(bound !== undefined ? ["MaterialBindingAPI"] : []), ...(skinning ? ["SkelBindingAPI"] : [])];
      const api = schemas.length ? [`prepend apiSchemas = [${schemas.map((x) => `"${x}"`).join(", ")}]`] : [];
      out.push("", `${p}def Mesh "${id}"${meta(p, data, api)}`, `${p}{`);
      const q = p + "    ";
      const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
      for (let v = 0; v < m.positions.length; v++) (lo[v % 3] = Math.min(lo[v % 3], m.positions[v])), (hi[v % 3] = Math.max(hi[v % 3], m.positions[v]));
      if (m.positions.length) out.push(`${q}float3[] extent = [${tuple(lo)}, ${tuple(hi)}]`);
      out.push(`${q}int[] faceVertexCounts = [${new Array(m.indices.length / 3).fill("3").join(", ")}]`);
      out.push(`${q}int[] faceVertexIndices = [${m.indices.join(", ")}]`);
      out.push(`${q}point3f[] points = ${vec3Array(m.positions)}`);
      out.push(`${q}normal3f[] normals = ${vec3Array(m.normals)} (\n${q}    interpolation = "vertex"\n${q})`);
      out.push(...primvarLines(m, q));
      // USD's doubleSided is the mesh's; it is set when every material on the mesh is double-sided
      // (each material also keeps its own flag in customData for the round trip).
      const used = slots.filter((k): k is number => k !== undefined && k !== null);
      if (used.length && used.every((k) => scene.materials[k].doubleSided)) out.push(`${q}uniform bool doubleSided = 1`);
      out.push(`${q}uniform token orientation = "rightHanded"`);
      // The schema default is catmullClark: without this, USD tools would smooth our triangles.
      out.push(`${q}uniform token subdivisionScheme = "none"`);
      if (bound !== undefined) out.push(`${q}rel material:binding = <${materialPath(bound)}>`);
      if (skinning) out.push(...skinning.lines);
      if (m.groups) {
        out.push(`${q}uniform token subsetFamily:materialBind:familyType = "partition"`);
        m.groups.forEach((g, k) => {
          const faces = Array.from({ length: g.count / 3 }, (_, t) => g.start / 3 + t);
          const material = slots[k];
          const bind = material !== undefined && material !== null;
          out.push("", `${q}def GeomSubset "slot_${k}"${bind ? ` (\n${q}    prepend apiSchemas = ["MaterialBindingAPI"]\n${q})` : ""}`, `${q}{`);
          out.push(`${q}    uniform token elementType = "face"`, `${q}    uniform token familyName = "materialBind"`, `${q}    int[] indices = [${faces.join(", ")}]`);
          if (bind) out.push(`${q}    rel material:binding = <${materialPath(material)}>`);
          out.push(`${q}}`);
        });
      }
      if (skinning) out.push(...skinning.children);
      out.push(`${p}}`);
    }
    if (n.light) {
      const l = n.light;
      const type = l.type === "directional" ? "DistantLight" : "SphereLight";
      // UsdLux has no range; customData keeps it for the round trip.
      const data = l.range === undefined || l.type === "directional" ? [] : [`double kilnRange = ${f(l.range)}`];
      out.push("", `${p}def ${type} "${ids[next++]}"${meta(p, data, l.type === "spot" ? ['prepend apiSchemas = ["ShapingAPI"]'] : [])}`, `${p}{`);
      out.push(`${p}    color3f inputs:color = ${tuple(l.color)}`, `${p}    float inputs:intensity = ${f(l.intensity)}`);
      if (type === "SphereLight") out.push(`${p}    float inputs:radius = 0`, `${p}    bool treatAsPoint = 1`);
      if (l.type === "spot") out.push(`${p}    float inputs:shaping:cone:angle = ${f(l.spotAngleDeg ?? 45)}`);
      out.push(`${p}}`);
    }
    if (n.camera) {
      const c = n.camera;
      let far = c.far;
      if (!Number.isFinite(far) || far > MAX_FAR) {
        warnings.push(`usd: camera "${n.name}" far plane ${far} written as ${MAX_FAR}`);
        far = MAX_FAR;
      }
      const focal = USD_VERTICAL_APERTURE / (2 * Math.tan((c.fovYDeg * Math.PI) / 360));
      out.push("", `${p}def Camera "${ids[next++]}"`, `${p}{`, `${p}    token projection = "perspective"`);
      out.push(`${p}    float horizontalAperture = 20.955`, `${p}    float verticalAperture = ${f(USD_VERTICAL_APERTURE)}`);
      out.push(`${p}    float focalLength = ${f(focal)}`, `${p}    float2 clippingRange = ${tuple([c.near, far])}`, `${p}}`);
    }
    for (const k of skeletons) writeSkeleton(k, p, path, ids[next++]);
    for (const c of children[i]) {
      const childId = ids[next++];
      out.push("");
      writeNode(c, p, childId, `${path}/${childId}`);
    }
    out.push(`${pad}}`);
  };

  const allTimes = scene.animations.flatMap((a) => a.times);
  const header = ["#usda 1.0", "(", `    defaultPrim = "${rootName}"`, '    doc = "Written by Kiln"', "    metersPerUnit = 1", '    upAxis = "Y"'];
  header.push(`    timeCodesPerSecond = ${USD_TIME_CODES_PER_SECOND}`);
  if (allTimes.length) header.push(`    startTimeCode = ${f(Math.min(...allTimes) * USD_TIME_CODES_PER_SECOND)}`, `    endTimeCode = ${f(Math.max(...allTimes) * USD_TIME_CODES_PER_SECOND)}`);
  // A SkelRoot holds every skinned mesh and Skeleton: the root prim is one when there are any.
  out.push(...header, ")", "", `def ${skel.skeletons.length ? "SkelRoot" : "Xform"} "${rootName}"${meta("", ["bool kilnSceneRoot = 1"])}`, "{");
  const rootSkeletons = skeletonsUnder(null);
  const rootIds = uniqueNames(["Materials", ...rootSkeletons.map((k) => usdIdentifier(skel.skeletons[k].name)), ...roots.map((r) => usdIdentifier(scene.nodes[r].name))]).slice(1);
  roots.forEach((r, k) => (k && out.push(""), writeNode(r, "    ", rootIds[rootSkeletons.length + k], `/${rootName}/${rootIds[rootSkeletons.length + k]}`)));
  rootSkeletons.forEach((k, at) => writeSkeleton(k, "    ", `/${rootName}`, rootIds[at]));

  out.push("", '    def Scope "Materials"', "    {");
  scene.materials.forEach((m, k) => {
    const id = materialIds[k];
    const data = [...nameData(m.name, id), ...(m.doubleSided ? ["bool kilnDoubleSided = 1"] : []), ...userPropertiesData(m.extras)];
    out.push(`        def Material "${id}"${meta("        ", data)}`, "        {");
    out.push(...materialLines(m, materialPath(k), "        ", imageFiles, (msg) => warnings.push(msg)), "        }");
  });
  out.push("    }", "}", "");
  const images = (scene.images ?? []).flatMap((img, k) => (usedImages.has(k) ? [{ name: imageFiles[k], bytes: img.bytes }] : []));
  const text = out.join("\n").replace(/\u0001(\d+)\u0001/g, (_, k: string) => skeletonPaths[Number(k)]);
  return { files: [{ name: `${baseName}.usda`, bytes: new TextEncoder().encode(text) }, ...images], warnings };
}
