/**
 * FBX material textures, written and read on the node tree (fbx-binary.ts): a Texture object
 * per material slot, connected OP to the material property it feeds, and a Video object per
 * image with the image bytes embedded ("Content"), connected OO to its textures, as Blender's and
 * the FBX SDK's "embed media" exports do. The exporter's own texture path needs decoded images
 * (a canvas) and knows no UV sets, so Kiln writes these nodes itself.
 *
 * Slots and properties: baseColor → DiffuseColor, normal → NormalMap, emissive → EmissiveColor
 * (what Blender, Maya and FBXLoader read), occlusion → "Maya|TEX_ao_map" (Maya's Stingray PBS
 * name) and metallicRoughness → "Kiln|metallicRoughness" (FBX has no packed-channel slot; other
 * tools ignore it, Kiln reads it back).
 *
 * KHR_texture_transform ↔ Texture Translation/Rotation/Scaling: as Blender's FBX importer and
 * exporter read and write them (a Mapping node of type TEXTURE in Blender UV space, Rotation in
 * radians, not the FBX SDK's degrees), converted from glTF's the way Blender's glTF importer
 * converts KHR_texture_transform (see fbxTextureTransform). A rotated, non-uniformly scaled
 * texture needs X/Y rotations too, which Blender reads exactly; the writer warns about those.
 */
import { PNG } from "pngjs";
import { Euler, Matrix4, Vector3 } from "three";
import { child, childrenNamed, stringProperty, text, type FbxDocument, type FbxNode, type FbxProperty } from "./fbx-binary";
import { objectName } from "./fbx-geometry";
import { UV_SET_NAMES } from "./fbx-layers";
import type { InterchangeImage, InterchangeScene, InterchangeTexture, TextureSlot } from "./interchange";

/** FBX material property each texture slot connects to. */
export const SLOT_PROPERTY: Record<TextureSlot, string> = {
  baseColor: "DiffuseColor",
  normal: "NormalMap",
  emissive: "EmissiveColor",
  occlusion: "Maya|TEX_ao_map",
  metallicRoughness: "Kiln|metallicRoughness",
};
/** Properties other writers use for the same slots (Blender reads these too). */
const READ_PROPERTY: Record<string, TextureSlot> = { ...Object.fromEntries(Object.entries(SLOT_PROPERTY).map(([s, p]) => [p, s as TextureSlot])), "3dsMax|maps|texmap_diffuse": "baseColor", Bump: "normal" };
/** Marks textures the writer derives for other tools (metallic and roughness split out); the reader skips them. */
const DERIVED = "Kiln|derived";
/** Larger metallic-roughness images are not split (decoding them costs memory and time). */
const MAX_SPLIT_PIXELS = 4096 * 4096;

/** Grey PNGs of a metallic-roughness PNG's blue (metallic) and green (roughness) channels times the factors, or null. */
function splitMetallicRoughness(img: InterchangeImage, metallic: number, roughness: number): { metallic: InterchangeImage; roughness: InterchangeImage } | null {
  if (img.mimeType !== "image/png") return null;
  let png: PNG;
  try {
    const size = Buffer.from(img.bytes.buffer, img.bytes.byteOffset, img.bytes.byteLength);
    if (size.length < 24 || size.readUInt32BE(16) * size.readUInt32BE(20) > MAX_SPLIT_PIXELS) return null;
    png = PNG.sync.read(size);
  } catch {
    return null;
  }
  const channel = (c: number, factor: number, name: string): InterchangeImage => {
    const out = new PNG({ width: png.width, height: png.height, colorType: 0, inputHasAlpha: true });
    for (let i = 0; i < png.data.length; i += 4) {
      const v = Math.round(png.data[i + c] * factor);
      out.data[i] = out.data[i + 1] = out.data[i + 2] = v;
      out.data[i + 3] = 255;
    }
    return { name: `${img.name}_${name}`, mimeType: "image/png", bytes: new Uint8Array(PNG.sync.write(out, { colorType: 0 })) };
  };
  return { metallic: channel(2, metallic, "metallic"), roughness: channel(1, roughness, "roughness") };
}

const node = (name: string, properties: FbxProperty[], children: FbxNode[] = []): FbxNode => ({ name, properties, children });
const str = (name: string, value: string) => node(name, [stringProperty(value)]);
const int = (value: number): FbxProperty => ({ type: "I", value });
const id = (value: bigint): FbxProperty => ({ type: "L", value });
const dbl = (value: number): FbxProperty => ({ type: "D", value });
const p = (name: string, type: string, label: string, flags: string, values: FbxProperty[]) => node("P", [stringProperty(name), stringProperty(type), stringProperty(label), stringProperty(flags), ...values]);

/** Blender's glTF importer: KHR_texture_transform → uv' = A·uv + location (a POINT mapping in Blender UV space), A = R(r)·diag(scale). */
function gltfToBlender(t: InterchangeTexture) {
  const [ox, oy] = t.offset ?? [0, 0], [sx, sy] = t.scale ?? [1, 1], r = t.rotation ?? 0;
  const c = Math.cos(r), s = Math.sin(r);
  return { a: [[c * sx, -s * sy], [s * sx, c * sy]], location: [ox + sy * s, 1 - oy - sy * c] };
}

/**
 * FBX Translation/Rotation/Scaling for a texture transform. Blender's importer makes them a
 * TEXTURE mapping, uv' = diag(Scaling)·Rᵀ·(uv - Translation) with R the Euler XYZ rotation of
 * -Rotation (radians). A rotation about Z alone gives diag(s)·R(r), which equals glTF's
 * R(r)·diag(s) only when r = 0 or the scale is uniform; otherwise R also tilts out of the UV
 * plane, chosen so that the first two rows of diag(s)·Rᵀ, restricted to u and v, are exactly A.
 */
export function fbxTextureTransform(t: InterchangeTexture): { translation: number[]; rotation: number[]; scaling: number[]; tilted: boolean } {
  const { a, location } = gltfToBlender(t);
  const det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
  const inv = det ? [[a[1][1] / det, -a[0][1] / det], [-a[1][0] / det, a[0][0] / det]] : [[1, 0], [0, 1]];
  // uv' = A·(uv - L) = A·uv + location  ⇒  L = -A⁻¹·location.
  const translation = [-(inv[0][0] * location[0] + inv[0][1] * location[1]), -(inv[1][0] * location[0] + inv[1][1] * location[1]), 0];
  const [sx, sy] = t.scale ?? [1, 1], r = t.rotation ?? 0;
  if (r === 0 || sx === sy || !det) return { translation, rotation: [0, 0, r], scaling: [sx, sy, 1], tilted: false };
  // Rows q1, q2 of Rᵀ: (a_i / s_i, z_i), unit and orthogonal. s1 = √2·|a1| makes z1 = 1/√2; s2 follows.
  const a1 = new Vector3(a[0][0], a[0][1], 0), a2 = new Vector3(a[1][0], a[1][1], 0);
  const s1 = Math.SQRT2 * a1.length(), z1 = Math.SQRT1_2, k = a1.dot(a2) / s1;
  const x = z1 / Math.sqrt(k * k + z1 * z1 * a2.lengthSq());
  const q1 = new Vector3(a1.x / s1, a1.y / s1, z1), q2 = new Vector3(a2.x * x, a2.y * x, (-k * x) / z1);
  const q3 = new Vector3().crossVectors(q1, q2);
  // R = (Rᵀ)ᵀ has q1, q2, q3 as columns; Blender's Euler XYZ is three's "ZYX" order.
  const e = new Euler().setFromRotationMatrix(new Matrix4().makeBasis(q1, q2, q3), "ZYX");
  return { translation, rotation: [-e.x, -e.y, -e.z], scaling: [s1, 1 / x, 1], tilted: true };
}

/** The texture transform (glTF style, absent parts left out) of an FBX texture's Translation/Rotation/Scaling, read as Blender does. */
export function gltfTextureTransform(translation: number[], rotation: number[], scaling: number[]): Pick<InterchangeTexture, "offset" | "scale" | "rotation"> {
  const r = new Matrix4().makeRotationFromEuler(new Euler(-rotation[0], -rotation[1], -rotation[2], "ZYX"));
  // M = diag(Scaling)·Rᵀ; uv' = M·(uv - T): A is its top-left 2×2, location = -(M·T)xy.
  const m = r.clone().transpose().premultiply(new Matrix4().makeScale(scaling[0], scaling[1], scaling[2]));
  const e = m.elements, at = (row: number, col: number) => e[col * 4 + row];
  const t = new Vector3(...translation).applyMatrix4(new Matrix4().copy(m).setPosition(0, 0, 0));
  const location = [-t.x, -t.y];
  // A = R(rot)·diag(sx, sy): its first column is sx·(cos, sin), its second sy·(-sin, cos).
  const rot = Math.atan2(at(1, 0), at(0, 0)), sx = Math.hypot(at(0, 0), at(1, 0));
  const sy = -Math.sin(rot) * at(0, 1) + Math.cos(rot) * at(1, 1);
  const out: Pick<InterchangeTexture, "offset" | "scale" | "rotation"> = {};
  const offset: [number, number] = [location[0] - sy * Math.sin(rot), 1 - location[1] - sy * Math.cos(rot)];
  const tiny = (v: number) => Math.abs(v) < 1e-12;
  if (!tiny(offset[0]) || !tiny(offset[1])) out.offset = offset;
  if (!tiny(sx - 1) || !tiny(sy - 1)) out.scale = [sx, sy];
  if (!tiny(rot)) out.rotation = rot;
  return out;
}

/**
 * Adds the Texture and Video objects of every material's textures to a written file.
 * `materialIds` gives, per interchange material, the ids of the FBX Material objects written for
 * it (several when a model needs it in two slots).
 */
export function writeTextures(doc: FbxDocument, scene: InterchangeScene, materialIds: Map<number, bigint[]>, warnings: string[]): void {
  const objects = doc.nodes.find((n) => n.name === "Objects"), connections = doc.nodes.find((n) => n.name === "Connections");
  if (!objects || !connections) throw new Error("fbx: exporter wrote no Objects or Connections");
  const used = new Set(objects.children.map((n) => n.properties[0]?.value));
  let next = 0x4b494c4e00000000n; // "KILN" in the high bits; skipped past any id already present
  const fresh = () => {
    while (used.has(next)) next++;
    used.add(next);
    return next++;
  };
  const videos = new Map<number | string, bigint>();
  let textureCount = 0;
  const fileName = (img: InterchangeImage) => `${img.name.replace(/[^\w.-]+/g, "_") || "image"}.${img.mimeType === "image/png" ? "png" : "jpg"}`;
  /** The Video object of an image (written once per image key). */
  const videoFor = (key: number | string, img: InterchangeImage) => {
    let video = videos.get(key);
    if (video !== undefined) return video;
    videos.set(key, (video = fresh()));
    objects.children.push(node("Video", [id(video), stringProperty(`${img.name}\0\u0001Video`), stringProperty("Clip")], [
      str("Type", "Clip"),
      node("Properties70", [], [p("Path", "KString", "XRefUrl", "", [stringProperty(fileName(img))])]),
      node("UseMipMap", [int(0)]),
      str("Filename", fileName(img)),
      str("RelativeFilename", fileName(img)),
      node("Content", [{ type: "R", value: img.bytes }]),
    ]));
    return video;
  };
  /** A Texture object showing `video` through `t`'s UV set and transform, connected to `property` of every FBX material in `ids`. */
  const textureFor = (name: string, video: bigint, img: InterchangeImage, t: InterchangeTexture, ids: bigint[], property: string, extra: FbxNode[] = []) => {
    const tf = fbxTextureTransform(t);
    const texture = fresh();
    textureCount++;
    objects.children.push(node("Texture", [id(texture), stringProperty(`${name}\0\u0001Texture`), stringProperty("")], [
      str("Type", "TextureVideoClip"),
      node("Version", [int(202)]),
      str("TextureName", `${name}\0\u0001Texture`),
      node("Properties70", [], [
        p("CurrentTextureBlendMode", "enum", "", "", [int(0)]),
        p("UVSet", "KString", "", "", [stringProperty(UV_SET_NAMES[t.uv])]),
        p("UseMaterial", "bool", "", "", [int(1)]),
        p("Translation", "Vector", "", "A", tf.translation.map(dbl)),
        p("Rotation", "Vector", "", "A", tf.rotation.map(dbl)),
        p("Scaling", "Vector", "", "A", tf.scaling.map(dbl)),
        ...extra,
      ]),
      str("Media", `${img.name}\0\u0001Video`),
      str("FileName", fileName(img)),
      str("RelativeFilename", fileName(img)),
      node("ModelUVTranslation", [dbl(0), dbl(0)]),
      node("ModelUVScaling", [dbl(1), dbl(1)]),
      str("Texture_Alpha_Source", "None"),
      node("Cropping", [int(0), int(0), int(0), int(0)]),
    ]));
    connections.children.push(node("C", [stringProperty("OO"), id(video), id(texture)]));
    for (const material of ids) connections.children.push(node("C", [stringProperty("OP"), id(texture), id(material), stringProperty(property)]));
    return !tf.tilted;
  };
  scene.materials.forEach((m, k) => {
    const ids = materialIds.get(k);
    if (!ids) return;
    for (const [slot, t] of Object.entries(m.textures ?? {}) as [TextureSlot, InterchangeTexture][]) {
      const img = scene.images![t.image];
      const flat = textureFor(`${m.name}_${slot}`, videoFor(t.image, img), img, t, ids, SLOT_PROPERTY[slot]);
      if (!flat) warnings.push(`fbx: ${slot} texture of material "${m.name}" rotates a non-uniformly scaled texture: written with X/Y texture rotations that Blender reads exactly and other tools may not`);
      if (slot !== "metallicRoughness") continue;
      // Other tools know no packed metallic-roughness slot: they get its channels (times the
      // material's factors, as glTF applies them) as grey images in Phong's metallic and
      // roughness slots, which Kiln's reader skips (DERIVED).
      const split = splitMetallicRoughness(img, m.metallic, m.roughness);
      if (!split) {
        warnings.push(`fbx: metallic-roughness texture of material "${m.name}" not split into metallic and roughness images for other tools (${img.mimeType === "image/png" ? "image too large" : "not a PNG"})`);
        continue;
      }
      const derived = [p(DERIVED, "bool", "", "U", [int(1)])];
      for (const [what, image, property] of [["metallic", split.metallic, "ReflectionFactor"], ["roughness", split.roughness, "ShininessExponent"]] as const)
        textureFor(`${m.name}_${what}`, videoFor(`${k}/${what}`, image), image, t, ids, property, derived);
    }
  });
  const definitions = doc.nodes.find((n) => n.name === "Definitions");
  if (definitions && textureCount) {
    for (const [type, count] of [["Texture", textureCount], ["Video", videos.size]] as const)
      definitions.children.push(node("ObjectType", [stringProperty(type)], [node("Count", [int(count)])]));
    const total = child(definitions, "Count");
    if (total?.properties[0]?.type === "I") total.properties[0] = int(total.properties[0].value + 2);
  }
}

/** A texture as read: its slot's property, image (Video id), UV set name and transform. */
export interface ReadTexture {
  slot: TextureSlot;
  video: bigint;
  uvSet: string;
  transform: Pick<InterchangeTexture, "offset" | "scale" | "rotation">;
}

const mimeOf = (b: Uint8Array): InterchangeImage["mimeType"] | undefined =>
  b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 ? "image/png" : b[0] === 0xff && b[1] === 0xd8 ? "image/jpeg" : undefined;

/**
 * Takes the textures out of a file's tree: per Material id, its textures (those Kiln has a slot
 * for, with embedded PNG or JPEG bytes), plus the images by Video id. Texture and Video objects
 * and their connections are removed from the tree (FBXLoader would try to load them). Everything
 * else is reported through `warn`.
 */
export function takeTextures(doc: FbxDocument, warn: (m: string) => void) {
  const objects = doc.nodes.find((n) => n.name === "Objects"), connections = doc.nodes.find((n) => n.name === "Connections");
  const key = (q: FbxProperty | undefined) => (q?.type === "L" ? q.value : BigInt(Number(q?.value ?? -1)));
  const textures = new Map<bigint, FbxNode>(), videos = new Map<bigint, FbxNode>(), materials = new Map<bigint, FbxNode>();
  for (const n of objects?.children ?? []) {
    if (n.name === "Texture") textures.set(key(n.properties[0]), n);
    if (n.name === "Video") videos.set(key(n.properties[0]), n);
    if (n.name === "Material") materials.set(key(n.properties[0]), n);
  }
  const images = new Map<bigint, InterchangeImage>();
  const byMaterial = new Map<bigint, ReadTexture[]>();
  if (!textures.size) return { byMaterial, images };
  const links = childrenNamed(connections, "C");
  const videoOf = new Map<bigint, bigint>();
  for (const c of links) if (text(c.properties[0]) === "OO" && videos.has(key(c.properties[1])) && textures.has(key(c.properties[2]))) videoOf.set(key(c.properties[2]), key(c.properties[1]));
  for (const c of links) {
    const from = key(c.properties[1]), to = key(c.properties[2]);
    const tex = textures.get(from), mat = materials.get(to);
    if (text(c.properties[0]) !== "OP" || !tex || !mat) continue;
    const isDerived = childrenNamed(child(tex, "Properties70"), "P").some((e) => text(e.properties[0]) === DERIVED);
    if (isDerived) continue;
    const property = text(c.properties[3]), slot = READ_PROPERTY[property];
    const what = `texture "${objectName(tex)}" of material "${objectName(mat)}"`;
    if (!slot) {
      warn(`fbx: ${what} (${property}) dropped: Kiln has no such slot`);
      continue;
    }
    const video = videoOf.get(from);
    const bytes = video === undefined ? undefined : child(videos.get(video), "Content")?.properties[0];
    const data = bytes && (bytes.type === "R" || bytes.type === "S") ? bytes.value : undefined;
    const mimeType = data && mimeOf(data);
    if (!data?.length || !mimeType) {
      warn(`fbx: ${what} dropped: ${data?.length ? "its image is neither PNG nor JPEG" : "its image is not embedded"}`);
      continue;
    }
    if (!images.has(video!)) images.set(video!, { name: objectName(videos.get(video!)!) || "image", mimeType, bytes: data });
    const prop = (name: string) => childrenNamed(child(tex, "Properties70"), "P").find((e) => text(e.properties[0]) === name);
    const vector = (name: string, fallback: number) => {
      const values = prop(name)?.properties.slice(4, 7).map((v) => Number(v.value)) ?? [];
      return [0, 1, 2].map((i) => (Number.isFinite(values[i]) ? values[i] : fallback));
    };
    const transform = gltfTextureTransform(vector("Translation", 0), vector("Rotation", 0), vector("Scaling", 1));
    const list = byMaterial.get(to) ?? [];
    list.push({ slot, video: video!, uvSet: text(prop("UVSet")?.properties[4]), transform });
    byMaterial.set(to, list);
  }
  if (objects) objects.children = objects.children.filter((n) => n.name !== "Texture" && n.name !== "Video");
  if (connections) connections.children = connections.children.filter((c) => !textures.has(key(c.properties[1])) && !videos.has(key(c.properties[1])));
  return { byMaterial, images };
}
