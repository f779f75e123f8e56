/**
 * Wavefront OBJ + MTL reader.
 *
 * Hand-written rather than three's OBJLoader/MTLLoader because (1) it keeps shared vertices
 * indexed (OBJLoader expands every triangle to three fresh vertices), (2) every statement it cannot
 * carry becomes a returned warning instead of a console message, and (3) it reads raw MTL numbers
 * with no sRGB reinterpretation. The tests still run OBJLoader as an independent reader.
 *
 * It reads the first UV set (`vt`, V flipped back to glTF's top-left origin), vertex colours
 * (`v x y z r g b`, sRGB as Blender writes and reads them, made linear), material slots (each
 * `usemtl` starts a group of the object's one mesh) and the MTL's texture maps (mtl.ts), whose
 * images are read from beside the file only (side-images.ts).
 *
 * `statement` defines what each line means, on the line's text. `v`, `vn` and `f` lines are
 * nearly all of a large file, so `fastLine` reads them from the bytes instead; it must give what
 * `statement` gives for every line it accepts, and leaves to `statement` the lines it cannot be
 * sure of (non-ASCII bytes, which may hold Unicode blanks; unusual corner syntax; bad indices).
 */
import { parseNumber } from "./text";
import { computeNormals, rootNode, type DecodeResult, type InterchangeMaterial, type InterchangeNode, type InterchangeScene } from "./interchange";
import { budget, LIMITS } from "./limits";
import { parseMtl } from "./mtl";
import { SideImages } from "./side-images";

/** sRGB → linear for one colour channel: OBJ vertex colours are sRGB (Blender's importer reads them so). */
const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));

/** The blanks of JavaScript's `\s` and `trim()` that fit in one byte: \t \n \v \f \r and space. */
const isBlank = (c: number) => c <= 32 && (c === 32 || (c >= 9 && c <= 13));
/** The same but "\n", which ends the line. */
const isSpace = (c: number) => c <= 32 && (c === 32 || c === 9 || c === 11 || c === 12 || c === 13);

/** The position of the "\n" that ends the line at `at`, or the end of the file. */
const lineEnd = (bytes: Uint8Array, at: number) => {
  const end = bytes.indexOf(10, at);
  return end < 0 ? bytes.length : end;
};

/** A copy of `a` with room for at least `size` values (and at least twice as many). */
const grow = <T extends Float64Array | Float32Array | Uint32Array | Int32Array | Uint8Array>(a: T, size: number): T => {
  const b = new (a.constructor as new (n: number) => T)(Math.max(size, a.length * 2));
  b.set(a);
  return b;
};

/** A list of xyz triples. */
class Vec3List {
  data = new Float64Array(3072);
  count = 0;

  push(x: number, y: number, z: number): void {
    if (this.data.length < 3 * this.count + 3) this.data = grow(this.data, 3 * this.count + 3);
    const at = 3 * this.count++;
    this.data[at] = x;
    this.data[at + 1] = y;
    this.data[at + 2] = z;
  }
}

/**
 * Values a part's arrays start with: room for one triangle. They double as they fill, so a big
 * mesh pays a few copies, while a file of 100,000 one-triangle objects does not hold 36 KiB of
 * empty arrays per object (it held 4.6 GB for 120,000 before its node count was even checked).
 */
const PART_START = 9;

/** The mesh of one object: vertices and triangles in typed arrays as they come, and its material groups. */
class Part {
  positions = new Float32Array(PART_START);
  normals = new Float32Array(PART_START);
  uvs: Float32Array | undefined;
  colors: Float32Array | undefined;
  vertexCount = 0;
  indices = new Uint32Array(PART_START);
  indexCount = 0;
  /** Vertex of a (position, UV, normal) triple that the reader's claim arrays do not hold. */
  remap = new Map<string, number>();
  missingNormals = false;
  missingUvs = false;
  /** Some vertex of this object's `v` lines had a colour (the others are white). */
  hasColors = false;
  /** Each `usemtl` starts a group at the index count it was reached at. */
  groups: { start: number; material: string | undefined }[] = [];

  constructor(readonly name: string) {}

  addVertex(from: Float64Array, at: number, normals: Vec3List, normal: number, uvs: Vec3List, uv: number, colors: Vec3List | undefined): number {
    const k = 3 * this.vertexCount;
    if (this.positions.length < k + 3) [this.positions, this.normals] = [grow(this.positions, k + 3), grow(this.normals, k + 3)];
    this.positions[k] = from[at];
    this.positions[k + 1] = from[at + 1];
    this.positions[k + 2] = from[at + 2];
    // An index outside the `vn` list (or none) reads as a zero normal.
    if (normal >= 0 && normal < normals.count) {
      this.normals[k] = normals.data[3 * normal];
      this.normals[k + 1] = normals.data[3 * normal + 1];
      this.normals[k + 2] = normals.data[3 * normal + 2];
    }
    if (uv >= 0) {
      // Vertices before the first UV'd corner get (0, 0): only a file mixing corners with and without UVs has them.
      if (!this.uvs) this.uvs = new Float32Array(Math.max(2 * (this.vertexCount + 1), (2 * this.positions.length) / 3));
      else if (this.uvs.length < 2 * this.vertexCount + 2) this.uvs = grow(this.uvs, 2 * this.vertexCount + 2);
      this.uvs[2 * this.vertexCount] = uvs.data[3 * uv];
      this.uvs[2 * this.vertexCount + 1] = 1 - uvs.data[3 * uv + 1];
    } else this.missingUvs = true;
    if (colors) {
      if (!this.colors) this.colors = new Float32Array(Math.max(4 * (this.vertexCount + 1), (4 * this.positions.length) / 3)).fill(1);
      else if (this.colors.length < 4 * this.vertexCount + 4) this.colors = grow(this.colors, 4 * this.vertexCount + 4).fill(1, this.colors.length);
      const c = 4 * this.vertexCount, src = at; // colours are stored per position, as the positions are
      this.colors[c] = toLinear(colors.data[src]);
      this.colors[c + 1] = toLinear(colors.data[src + 1]);
      this.colors[c + 2] = toLinear(colors.data[src + 2]);
      this.colors[c + 3] = 1;
    }
    return this.vertexCount++;
  }

  addTriangle(a: number, b: number, c: number): void {
    if (this.indices.length < this.indexCount + 3) this.indices = grow(this.indices, this.indexCount + 3);
    this.indices[this.indexCount++] = a;
    this.indices[this.indexCount++] = b;
    this.indices[this.indexCount++] = c;
  }
}

/** Reads an OBJ (and the MTL files it names, from `files`) into root nodes with world-space meshes. */
export async function decodeObj(files: Map<string, Uint8Array>, mainName: string): Promise<DecodeResult> {
  const main = files.get(mainName);
  if (!main) throw new Error(`obj: ${mainName} not among the given files`);
  const reader = new ObjReader(files, !hasObjectStatement(main));
  reader.read(main);
  return reader.result();
}

/**
 * Whether a line starts with `o ` or `o\t`, as the regex /^o[ \t]/m would find in the decoded text
 * (where a line also starts after "\r", U+2028 and U+2029, and a byte-order mark is gone).
 */
function hasObjectStatement(bytes: Uint8Array): boolean {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let i = bytes.indexOf(111, bom); i >= 0; i = bytes.indexOf(111, i + 1)) {
    if (bytes[i + 1] !== 32 && bytes[i + 1] !== 9) continue;
    const prev = i === bom ? 10 : bytes[i - 1];
    if (prev === 10 || prev === 13) return true;
    if (i >= 3 && bytes[i - 3] === 0xe2 && bytes[i - 2] === 0x80 && (prev === 0xa8 || prev === 0xa9)) return true;
  }
  return false;
}

/** What an OBJ file has defined so far, line by line, and the parts its faces are building. */
class ObjReader {
  readonly warnings: string[] = [];
  private readonly scene: InterchangeScene = { nodes: [], meshes: [], materials: [], animations: [] };
  private readonly mtl = new Map<string, InterchangeMaterial>();
  private readonly materialIndex = new Map<string, number>();
  private readonly decoder = new TextDecoder();
  private readonly v = new Vec3List();
  private readonly vn = new Vec3List();
  private readonly vt = new Vec3List();
  /** sRGB colour per `v` (and whether that `v` had one), kept once some `v` has a colour. */
  private vc: Vec3List | undefined;
  private vcHas = new Uint8Array(0);
  private readonly images: SideImages;
  private readonly parts: Part[] = [];
  private part: Part | undefined;
  private objectName = "";
  private material: string | undefined;
  // Corner → vertex lookup, fast path: most files pair each position with one normal in one part,
  // so the first (part, normal) seen per position sits in typed arrays indexed by the position;
  // any other pairing goes to the part's Map. At 10⁶ triangles this replaces millions of Map
  // operations on non-integer keys.
  private claimPart = new Int32Array(0);
  private claimNormal = new Int32Array(0);
  private claimUv = new Int32Array(0);
  private claimOut = new Int32Array(0);
  /** The current face's corners: position, UV and normal indices (0-based, -1 if none). */
  private cornerPositions: number[] = [];
  private cornerUvs: number[] = [];
  private cornerNormals: number[] = [];
  /** A `usemtl` was read since the last face: the next face starts a group. */
  private newGroup = false;
  /** Where the last `readIndex` stopped. */
  private indexEnd = 0;
  /** Triangles of all faces so far, checked before they are stored. */
  private triangles = 0;

  /** `groupsAreObjects`: `g` names objects only in files that never use `o` (3ds Max style); otherwise it is a sub-group. */
  constructor(private readonly files: Map<string, Uint8Array>, private readonly groupsAreObjects: boolean) {
    this.images = new SideImages(files, this.scene, (msg) => this.warn(msg), "obj");
  }

  /** Warnings given so far, for de-duplication in constant time (a file may name 100,000 objects). */
  private readonly warned = new Set<string>();
  /** Objects each per-object warning names (`result` words them, summarised past a few). */
  private readonly objectWarnings = new Map<string, string[]>();

  private warn(msg: string): void {
    if (this.warned.has(msg)) return;
    this.warned.add(msg);
    this.warnings.push(msg);
  }

  /** A warning about object `name`, e.g. "had faces without normals; smooth normals computed". */
  private warnObject(name: string, what: string): void {
    const names = this.objectWarnings.get(what) ?? [];
    if (!names.length) this.objectWarnings.set(what, names);
    names.push(name);
  }

  /** The per-object warnings: one per object for a few, one summary naming the first few past that. */
  private flushObjectWarnings(): void {
    const SHOWN = 5;
    for (const [what, names] of this.objectWarnings) {
      if (names.length <= SHOWN) for (const name of names) this.warn(`obj: object "${name}" ${what}`);
      else this.warn(`obj: ${names.length} objects (${names.slice(0, SHOWN).map((n) => `"${n}"`).join(", ")}, …) ${what.replace(/^has /, "have ")}`);
    }
  }

  read(bytes: Uint8Array): void {
    for (let start = 0; start < bytes.length; ) {
      let end = this.fastLine(bytes, start);
      if (end < 0) {
        end = lineEnd(bytes, start);
        const line = this.decoder.decode(bytes.subarray(start, end)).trim();
        if (line && line[0] !== "#") this.statement(line);
      }
      start = end + 1;
    }
  }

  /**
   * Handles a blank, comment or `vt` line, or a plain `v`, `vn` or `f` line, and returns where it
   * ends (its "\n" or the end of the file); -1 leaves the line to `statement`. The fast paths find
   * the line's end as they read it, rather than in a pass of their own.
   */
  private fastLine(bytes: Uint8Array, at: number): number {
    const n = bytes.length;
    while (at < n && isSpace(bytes[at])) at++;
    if (at === n || bytes[at] === 10) return at;
    const key = bytes[at], second = at + 1 < n ? bytes[at + 1] : 10;
    if (key === 35) return lineEnd(bytes, at); // "#"
    if (key === 102 && isBlank(second)) return this.fastFace(bytes, at + 1); // "f"
    if (key !== 118) return -1; // "v"
    if (isBlank(second)) return this.fastVector(bytes, at + 1, this.v);
    if (!isBlank(at + 2 < n ? bytes[at + 2] : 10)) return -1;
    if (second === 110) return this.fastVector(bytes, at + 2, this.vn); // "vn"
    if (second !== 116) return -1; // "vt"
    return this.fastVector(bytes, at + 2, this.vt);
  }

  /**
   * `v x y z …`, `vn x y z` or `vt u [v [w]]`: numbers, then any number of tokens, all ASCII; a `v`
   * of six or more numbers carries an RGB colour in the fourth to sixth.
   */
  private fastVector(bytes: Uint8Array, at: number, list: Vec3List): number {
    const n = bytes.length;
    let x = 0, y = 0, z = 0, r = 0, g = 0, b = 0, tokens = 0;
    for (; ; tokens++) {
      while (at < n && isSpace(bytes[at])) at++;
      if (at === n || bytes[at] === 10) break;
      const start = at;
      for (; at < n && !isBlank(bytes[at]); at++) if (bytes[at] >= 128) return -1;
      if (tokens === 0) x = parseNumber(bytes, start, at);
      else if (tokens === 1) y = parseNumber(bytes, start, at);
      else if (tokens === 2) z = parseNumber(bytes, start, at);
      else if (tokens === 3) r = parseNumber(bytes, start, at);
      else if (tokens === 4) g = parseNumber(bytes, start, at);
      else if (tokens === 5) b = parseNumber(bytes, start, at);
    }
    if (tokens < (list === this.vt ? 1 : 3)) return -1;
    list.push(x, tokens > 1 ? y : 0, z);
    if (list === this.v) this.vertexColour(tokens >= 6, r, g, b);
    return at;
  }

  /** Records the colour of the latest `v` (white without one), from the first coloured `v` on. */
  private vertexColour(has: boolean, r: number, g: number, b: number): void {
    if (!has && !this.vc) return;
    if (!this.vc) {
      this.vc = new Vec3List();
      for (let k = 0; k < this.v.count - 1; k++) this.vc.push(1, 1, 1);
    }
    if (this.vcHas.length < this.v.count) this.vcHas = grow(this.vcHas, this.v.count);
    this.vcHas[this.v.count - 1] = has ? 1 : 0;
    if (has) this.vc.push(r, g, b);
    else this.vc.push(1, 1, 1);
  }

  /** `f` with corners `v`, `v/t`, `v//n` or `v/t/n` (plain integers) whose vertices exist. */
  private fastFace(bytes: Uint8Array, at: number): number {
    const n = bytes.length, positions = this.cornerPositions, normals = this.cornerNormals, uvs = this.cornerUvs;
    const vertexCount = this.v.count, normalCount = this.vn.count, uvCount = this.vt.count;
    let count = 0;
    for (; ; count++) {
      while (at < n && isSpace(bytes[at])) at++;
      if (at === n || bytes[at] === 10) break;
      const position = this.readIndex(bytes, at, vertexCount);
      if (!(position >= 0 && position < vertexCount)) return -1; // NaN too: not a plain integer
      let normal = -1, uv = -1;
      at = this.indexEnd;
      if (at < n && bytes[at] === 47) { // "/"
        at++;
        if (at < n && bytes[at] !== 47 && !isBlank(bytes[at])) {
          uv = this.readIndex(bytes, at, uvCount);
          if (Number.isNaN(uv)) return -1;
          at = this.indexEnd;
          if (at < n && bytes[at] !== 47 && !isBlank(bytes[at])) return -1;
        }
        if (at < n && bytes[at] === 47) at++;
        if (bytes[at - 1] === 47 && at < n && !isBlank(bytes[at])) {
          normal = this.readIndex(bytes, at, normalCount);
          if (Number.isNaN(normal)) return -1;
          at = this.indexEnd;
        }
      }
      if (at < n && !isBlank(bytes[at])) return -1;
      positions[count] = position;
      normals[count] = normal;
      uvs[count] = uv;
    }
    if (count === 0) return -1;
    this.face(count);
    return at;
  }

  /** The 0-based index for the plain integer at `at` (see `fromObjIndex`), or NaN if there is none. */
  private readIndex(bytes: Uint8Array, at: number, count: number): number {
    const negative = bytes[at] === 45; // "-"
    if (negative) at++;
    const start = at;
    let n = 0;
    for (; at < bytes.length && bytes[at] >= 48 && bytes[at] <= 57; at++) n = n * 10 + bytes[at] - 48;
    this.indexEnd = at;
    if (at === start || at - start > 15) return NaN; // beyond 15 digits n is no longer exact
    return fromObjIndex(negative ? -n : n, count);
  }

  /** One statement, as trimmed text that is neither empty nor a comment. */
  private statement(line: string): void {
    const sp = line.search(/\s/);
    const key = sp < 0 ? line : line.slice(0, sp);
    const rest = sp < 0 ? "" : line.slice(sp + 1).trim();
    switch (key) {
      case "v": {
        const t = rest.split(/\s+/);
        this.v.push(+t[0], +t[1], +t[2]);
        this.vertexColour(t.length >= 6, +t[3], +t[4], +t[5]);
        break;
      }
      case "vn": { const t = rest.split(/\s+/); this.vn.push(+t[0], +t[1], +t[2]); break; }
      case "vt": { const t = rest.split(/\s+/); this.vt.push(+t[0], t.length > 1 ? +t[1] : 0, 0); break; }
      case "f": {
        const tokens = rest.split(/\s+/);
        tokens.forEach((tok, k) => {
          const s1 = tok.indexOf("/"), s2 = s1 < 0 ? -1 : tok.indexOf("/", s1 + 1);
          const vi = s1 < 0 ? tok : tok.slice(0, s1), ni = s2 < 0 ? "" : tok.slice(s2 + 1);
          const ti = s1 < 0 ? "" : tok.slice(s1 + 1, s2 < 0 ? undefined : s2);
          const pi = ref(vi, this.v.count);
          if (!(pi >= 0 && pi < this.v.count)) throw new Error(`obj: face corner "${tok}" references a missing vertex`);
          this.cornerPositions[k] = pi;
          this.cornerNormals[k] = ni ? ref(ni, this.vn.count) : -1;
          this.cornerUvs[k] = ti ? ref(ti, this.vt.count) : -1;
        });
        this.face(tokens.length);
        break;
      }
      case "o": this.objectName = rest; this.part = undefined; break;
      case "g":
        if (this.groupsAreObjects) [this.objectName, this.part] = [rest, undefined];
        else if (rest) this.warn("obj: groups (g) merged into their objects");
        break;
      case "usemtl": this.material = rest; this.newGroup = true; break;
      case "mtllib": this.materialLibrary(rest); break;
      case "s": break; // smoothing groups only matter without vn, and then normals are computed smooth
      case "l": case "p": this.warn(`obj: ${key === "l" ? "lines" : "points"} dropped`); break;
      default: this.warn(`obj: statement "${key}" ignored`);
    }
  }

  private materialLibrary(rest: string): void {
    for (const lib of this.files.has(rest) ? [rest] : rest.split(/\s+/)) {
      const bytes = this.files.get(lib);
      if (!bytes) this.warn(`obj: material library "${lib}" not provided; its materials dropped`);
      else for (const [k, m] of parseMtl(this.decoder.decode(bytes), this.images, (msg) => this.warn(msg))) {
        // Every defined material is kept, used or not, so an encode → decode round trip loses none.
        this.mtl.set(k, m);
        this.materialIndex.set(k, this.scene.materials.push(m) - 1);
      }
    }
  }

  /** Adds the polygon of the first `count` corners, as a fan of triangles. */
  private face(count: number): void {
    if (!this.part) {
      // Counted before the part allocates anything (the pre-scan, prescan.ts, has usually refused such a file already).
      budget(this.parts.length < LIMITS.nodes, `obj: the file has more than ${LIMITS.nodes} objects with faces (each one node); at most ${LIMITS.nodes} nodes are read`);
      this.parts.push((this.part = new Part(this.objectName)));
    }
    this.triangles += Math.max(0, count - 2);
    budget(this.triangles <= LIMITS.triangles, `obj: the faces make more than ${LIMITS.triangles} triangles; at most ${LIMITS.triangles} are read`);
    const p = this.part, partId = this.parts.length - 1;
    if (this.newGroup || !p.groups.length) p.groups.push({ start: p.indexCount, material: this.material });
    this.newGroup = false;
    if (this.claimPart.length < this.v.count) {
      this.claimPart = grow(this.claimPart, this.v.count).fill(-1, this.claimPart.length);
      [this.claimNormal, this.claimUv, this.claimOut] = [grow(this.claimNormal, this.v.count), grow(this.claimUv, this.v.count), grow(this.claimOut, this.v.count)];
    }
    const corners = this.cornerPositions, uvCount = this.vt.count;
    for (let k = 0; k < count; k++) {
      let uv = this.cornerUvs[k];
      if (uv !== -1 && !(uv >= 0 && uv < uvCount)) (this.warn("obj: face corners refer to texture coordinates that do not exist; read as (0, 0)"), (uv = -1));
      corners[k] = this.vertex(p, partId, corners[k], uv, this.cornerNormals[k]);
    }
    if (count > 3) this.warn("obj: polygons with more than 3 corners triangulated as fans");
    for (let k = 1; k + 1 < count; k++) p.addTriangle(corners[0], corners[k], corners[k + 1]);
  }

  /** The part's vertex for a (position, UV, normal) triple, added on first use. */
  private vertex(p: Part, partId: number, pi: number, uv: number, nIdx: number): number {
    if (this.claimPart[pi] === partId && this.claimNormal[pi] === nIdx && this.claimUv[pi] === uv) return this.claimOut[pi];
    const key = `${pi}/${uv}/${nIdx}`;
    let out = p.remap.get(key);
    if (out === undefined) {
      out = p.addVertex(this.v.data, 3 * pi, this.vn, nIdx, this.vt, uv, this.vc);
      if (this.vcHas[pi]) p.hasColors = true;
      if (this.claimPart[pi] === -1) [this.claimPart[pi], this.claimNormal[pi], this.claimUv[pi], this.claimOut[pi]] = [partId, nIdx, uv, out];
      else p.remap.set(key, out);
      if (nIdx < 0) p.missingNormals = true;
    }
    return out;
  }

  result(): DecodeResult {
    const { scene } = this;
    const partsPerObject = new Map<string, number>();
    for (const p of this.parts) {
      if (p.indexCount === 0) continue;
      const seen = partsPerObject.get(p.name) ?? 0;
      partsPerObject.set(p.name, seen + 1);
      const name = seen === 0 ? p.name : `${p.name}_${seen + 1}`;
      if (seen > 0) this.warn(`obj: object "${p.name}" appears more than once; read as nodes "${p.name}", "${name}", …`);
      const vertices = p.vertexCount;
      const positions = p.positions.slice(0, 3 * vertices);
      const indices = p.indices.slice(0, p.indexCount);
      if (p.missingNormals) this.warnObject(p.name, "had faces without normals; smooth normals computed");
      const normals = p.missingNormals ? computeNormals(positions, indices) : p.normals.slice(0, 3 * vertices);
      const mesh: InterchangeScene["meshes"][number] = { name, positions, normals, indices };
      if (p.uvs) {
        if (p.missingUvs) this.warnObject(p.name, "has faces without texture coordinates; read as (0, 0)");
        // Vertices added after the last UV'd corner lie past the array's end: they are (0, 0) too.
        const uv = new Float32Array(2 * vertices);
        uv.set(p.uvs.subarray(0, Math.min(p.uvs.length, 2 * vertices)));
        mesh.uvs = [uv];
      }
      if (p.hasColors) {
        // Vertices added before colours began are white, as the colour list counts them.
        const colors = new Float32Array(4 * vertices).fill(1);
        if (p.colors) colors.set(p.colors.subarray(0, Math.min(p.colors.length, 4 * vertices)));
        mesh.colors = colors;
      }
      const groups = p.groups.map((g, k) => ({ start: g.start, count: (p.groups[k + 1]?.start ?? p.indexCount) - g.start, material: this.materialOf(g.material) })).filter((g) => g.count > 0);
      const node: InterchangeNode = { ...rootNode(name), mesh: scene.meshes.push(mesh) - 1 };
      if (groups.length > 1) {
        mesh.groups = groups.map(({ start, count }) => ({ start, count }));
        node.materials = groups.map((g) => g.material ?? null);
      } else if (groups[0]?.material !== undefined) node.material = groups[0].material;
      scene.nodes.push(node);
    }
    this.flushObjectWarnings();
    return { scene, warnings: this.warnings };
  }

  /** The material index of a `usemtl` name (undefined, with a warning, for a name no MTL defines). */
  private materialOf(name: string | undefined): number | undefined {
    if (name === undefined) return undefined;
    const k = this.materialIndex.get(name);
    if (k === undefined) this.warn(`obj: material "${name}" not defined in any MTL; dropped`);
    return k;
  }
}

/** A 1-based or negative (counting back from the latest of `count`) OBJ index as 0-based. */
const fromObjIndex = (n: number, count: number) => (n < 0 ? count + n : n - 1);

/** `fromObjIndex` of the integer a corner's text starts with, by parseInt's rules. */
const ref = (tok: string, count: number) => fromObjIndex(parseInt(tok, 10), count);
