/**
 * The sky: a gradient by elevation that is both the background and the light source of the
 * hemisphere ("ambient") term, so faces turned away from every light still read.
 *
 * The gradient is piecewise linear in the view direction's height y (unit vector):
 * ground for y <= -0.1, ground -> horizon over -0.1..0, horizon -> zenith over 0..1. The
 * Blender fixtures build the very same function from a ColorRamp node, so both renderers are
 * lit by the same sky (server/scene/render/fixtures/blender-render.py).
 *
 * Hemisphere light: an up-facing Lambert surface under that sky receives the cosine-weighted
 * mean radiance horizon + (zenith - horizon) * 2/3 (y is distributed 2y dy over the
 * hemisphere). A down-facing one sees the ground, whose radiance we estimate as a mid-grey
 * (albedo GROUND_ALBEDO) lit by that sky and the directional lights. Anything in between is
 * blended by (1 + n.y) / 2, the usual hemisphere-light approximation. It ignores occlusion.
 */
import type { RenderLight, RenderSky, Vec3 } from "./types";

/** Default sky, linear radiance: a clear-day blue fading to a pale horizon over a dark ground. */
export const DEFAULT_SKY: RenderSky = {
  zenith: [0.16, 0.27, 0.55],
  horizon: [0.52, 0.6, 0.72],
  ground: [0.16, 0.15, 0.14],
};

/** Albedo assumed for "the ground" when estimating light bounced up from below. */
export const GROUND_ALBEDO = 0.3;

/** Width (in y) of the blend from horizon to ground below the horizon line. */
export const HORIZON_BAND = 0.1;

function finite3(v: unknown, fallback: Vec3): Vec3 {
  return Array.isArray(v) && v.length >= 3 && v.every((x) => Number.isFinite(x)) ? [Math.max(0, v[0]), Math.max(0, v[1]), Math.max(0, v[2])] : fallback;
}

/** A sky with every field present, finite and non-negative. */
export function sanitizeSky(sky: RenderSky | undefined): RenderSky {
  return {
    zenith: finite3(sky?.zenith, DEFAULT_SKY.zenith),
    horizon: finite3(sky?.horizon, DEFAULT_SKY.horizon),
    ground: finite3(sky?.ground, DEFAULT_SKY.ground),
  };
}

/**
 * Packs the sky for the per-sample loops: [zenith rgb, horizon rgb, ground rgb,
 * up-irradiance rgb, down-irradiance rgb] (15 numbers), irradiances already scaled by `ambient`.
 */
export function packSky(sky: RenderSky, ambient: number, lights: readonly RenderLight[]): Float64Array {
  const out = new Float64Array(15);
  out.set(sky.zenith, 0);
  out.set(sky.horizon, 3);
  out.set(sky.ground, 6);
  const sun: Vec3 = [0, 0, 0];
  for (const l of Array.isArray(lights) ? lights : []) {
    if (l?.type !== "directional" || !Number.isFinite(l.intensity) || l.intensity <= 0) continue;
    const d = l.direction;
    const len = Math.hypot(d?.[0], d?.[1], d?.[2]);
    if (!(len > 0) || !Number.isFinite(len)) continue;
    const down = Math.max(0, -d[1] / len);
    for (let k = 0; k < 3; k++) sun[k] += Math.max(0, Number(l.color?.[k]) || 0) * l.intensity * down;
  }
  for (let k = 0; k < 3; k++) {
    const up = sky.horizon[k] + ((sky.zenith[k] - sky.horizon[k]) * 2) / 3;
    out[9 + k] = up * ambient;
    out[12 + k] = GROUND_ALBEDO * (up + sun[k]) * ambient;
  }
  return out;
}

/** Sky radiance (linear) towards a direction whose unit-vector height is `y`, written into `out` at `o`. */
export function skyRadiance(sky: Float64Array, y: number, out: Float32Array | Float64Array, o: number): void {
  if (y >= 0) {
    const t = y < 1 ? y : 1;
    out[o] = sky[3] + (sky[0] - sky[3]) * t;
    out[o + 1] = sky[4] + (sky[1] - sky[4]) * t;
    out[o + 2] = sky[5] + (sky[2] - sky[5]) * t;
  } else {
    const t = -y < HORIZON_BAND ? -y / HORIZON_BAND : 1;
    out[o] = sky[3] + (sky[6] - sky[3]) * t;
    out[o + 1] = sky[4] + (sky[7] - sky[4]) * t;
    out[o + 2] = sky[5] + (sky[8] - sky[5]) * t;
  }
}
