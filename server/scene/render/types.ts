/**
 * Input/output types of the software renderer.
 *
 * Everything is in ONE canonical world space: right-handed, +Y up, metres
 * (glTF's convention). Colours are LINEAR (like glTF baseColorFactor); the
 * renderer encodes to sRGB only when writing the output pixels.
 */

/** A 3-vector `[x, y, z]` in world space (metres) or a linear RGB triple. */
export type Vec3 = [number, number, number];

/** Linear RGBA colour, each channel 0..1. */
export type Rgba = [number, number, number, number];

/** A pinhole camera; `forward` and `up` need not be normalised or orthogonal. */
export interface RenderCamera {
  /** Eye position in world space. */
  eye: Vec3;
  /** Viewing direction (any length); falls back to -Z when zero or NaN. */
  forward: Vec3;
  /** Approximate up vector; re-orthogonalised against `forward`. */
  up: Vec3;
  /** Vertical field of view in degrees (clamped to 1..179). */
  fovYDeg: number;
  /** Near clip distance in metres (default 0.05). */
  near?: number;
  /** Far clip distance in metres (default Infinity: nothing is clipped by distance). */
  far?: number;
}

/** A triangle mesh whose vertices are already transformed into world space. */
export interface RenderMesh {
  /** World-space xyz triples, already transformed. */
  positions: Float32Array;
  /** World-space per-vertex normals; when absent (or too short) face normals are used. */
  normals?: Float32Array;
  /** Vertex indices, three per triangle, counter-clockwise = front face. */
  indices: Uint32Array;
  /** Linear base colour; alpha is ignored (everything is drawn opaque). */
  color: Rgba;
  /** 0 = dielectric (default), 1 = metal: tints the specular term and removes the diffuse one. */
  metallic?: number;
  /** 0 = mirror-like, 1 = fully rough (default 0.5); the GGX specular lobe's width. */
  roughness?: number;
  /** Whether the mesh casts shadows (default true). */
  castShadows?: boolean;
  /** When false, back faces are culled; default true (both sides drawn and lit). */
  doubleSided?: boolean;
  /**
   * The triangles bound a solid and face outwards (Kiln's cube, sphere and cylinder). Shadow maps
   * then skip the faces turned away from the light: along any ray from the light a face turned
   * towards it comes first, so the map is the same at about half the cost. Default false.
   */
  closed?: boolean;
  /** Base colour texture: multiplies `color`. Drawn flat when its image is missing from `RenderInput.images`. */
  texture?: RenderTexture;
  /**
   * Which object the mesh is part of, when an object is drawn as several meshes (one per material
   * slot): parts of one object do not occlude each other's ambient light. Default: its own object.
   */
  object?: number;
}

/**
 * A base colour texture on a mesh (glTF's baseColorTexture with KHR_texture_transform).
 * UVs are glTF's: (0, 0) is the image's top-left texel corner, V grows downwards; the sampler
 * repeats. The transform is uv' = T(offset) · R(rotation) · S(scale) · uv, as the extension defines.
 */
export interface RenderTexture {
  /** Key into `RenderInput.images`. */
  image: string;
  /** Two floats per vertex (same order as `positions`); too short = no texture. */
  uv: Float32Array;
  /** Default [0, 0]. */
  offset?: [number, number];
  /** Default [1, 1]. */
  scale?: [number, number];
  /** Radians, default 0 (counter-clockwise in UV space as the extension defines it). */
  rotation?: number;
}

/** A decoded image: RGBA8, row-major, top row first, sRGB-encoded (alpha ignored). */
export interface RenderImage {
  width: number;
  height: number;
  /** width * height * 4 bytes. */
  data: Uint8Array | Uint8ClampedArray;
}

/**
 * A light. Intensity 1 means "full": a white directional light of intensity 1
 * hitting a surface head-on lights it to its full base colour. Point and spot
 * intensities mean the same at zero distance and fade smoothly to zero at
 * `range` (range <= 0 or non-finite = no distance falloff). `angleDeg` is the
 * spot's half-angle from its axis (like three.js `angle` / glTF outerConeAngle).
 */
export type RenderLight =
  | { type: "directional"; direction: Vec3; color: Vec3; intensity: number }
  | { type: "point"; position: Vec3; color: Vec3; intensity: number; range: number }
  | {
      type: "spot";
      position: Vec3;
      direction: Vec3;
      color: Vec3;
      intensity: number;
      range: number;
      angleDeg: number;
    };

/** Everything needed to render one frame. */
export interface RenderInput {
  /** Output width in pixels (integer; the supported contract is 16..4096). */
  width: number;
  /** Output height in pixels (integer; the supported contract is 16..4096). */
  height: number;
  /** The viewpoint. */
  camera: RenderCamera;
  /** Opaque triangle meshes in world space. */
  meshes: RenderMesh[];
  /** Lights; an empty list leaves only the ambient term. */
  lights: RenderLight[];
  /** Linear flat background colour instead of the sky gradient; alpha ignored (output is always opaque). */
  background?: Rgba;
  /** Sky radiance (linear): shown behind everything and used for the hemisphere (ambient) light. */
  sky?: RenderSky;
  /** Strength of the hemisphere light from the sky and the ground (default 1; 0 = lights only). */
  ambient?: number;
  /** Scene-linear multiplier before tone mapping (default 1). */
  exposure?: number;
  /** Samples per pixel along each axis (1..4, default 2 = 4 samples per pixel); lowered for huge images. */
  supersample?: number;
  /** Ordered dithering when quantising to 8 bits, against banding in gradients (default true). */
  dither?: boolean;
  /** Shadows from directional and spot lights (default true). */
  shadows?: boolean;
  /** Drawn on top of the shaded image: ground grid, axes, text labels. */
  overlay?: RenderOverlay;
  /** Decoded images by id, for the meshes' textures (the caller decodes; the renderer stays pure). */
  images?: Record<string, RenderImage>;
}

/** Sky gradient by elevation: ground below the horizon, horizon at it, zenith straight up (linear radiance). */
export interface RenderSky {
  zenith: Vec3;
  horizon: Vec3;
  ground: Vec3;
}

/** Helpers drawn over the image (all optional). */
export interface RenderOverlay {
  /** A grid on the ground plane (world y = 0), 1 m lines, every 10th stronger; hidden where geometry is in front. */
  grid?: boolean;
  /** Axis arrows from the world origin; directions and colours are the app's (e.g. Blender's Z up is world +Y). */
  axes?: { direction: Vec3; color: Vec3; label: string }[];
  /** Text drawn at world positions, always on top (object names). */
  labels?: { text: string; position: Vec3; color?: Vec3 }[];
}

/** An RGBA8 image, row-major, top row first, sRGB-encoded, alpha always 255. */
export interface RenderOutput {
  /** Image width in pixels. */
  width: number;
  /** Image height in pixels. */
  height: number;
  /** width * height * 4 bytes. */
  data: Uint8ClampedArray;
}
