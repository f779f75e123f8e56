/**
 * Light packing: converts RenderLight objects into one flat Float64Array so
 * the per-pixel shading loop reads numbers by offset instead of chasing
 * object properties (keeps the inner loop monomorphic and allocation-free).
 */
import { normalizeOrNull } from "./camera";
import type { RenderLight } from "./types";

/** Numbers per packed light. */
export const LIGHT_STRIDE = 12;
/** Packed type tag: directional light. */
export const LIGHT_DIRECTIONAL = 0;
/** Packed type tag: point light. */
export const LIGHT_POINT = 1;
/** Packed type tag: spot light. */
export const LIGHT_SPOT = 2;

/**
 * Layout per light (offsets):
 * 0 type | 1..3 directional: unit vector TOWARDS the light; point/spot: position |
 * 4..6 colour * intensity | 7 range (Infinity = no falloff) | 8 1/range^2 |
 * 9..11 spot: unit direction the light travels.
 * Spot cone cosines go in a second array so the stride stays a small constant.
 */
export interface PackedLights {
  /** Flat light records, LIGHT_STRIDE numbers each. */
  data: Float64Array;
  /** Per light: [cos(outer), 1 / (cos(inner) - cos(outer))]. */
  cone: Float64Array;
  /** Number of usable lights. */
  count: number;
  /** True when any point or spot light exists (pixels then need world positions). */
  positional: boolean;
}

/** Fraction of the spot half-angle that is fully lit; the rest is a smooth penumbra. */
const SPOT_INNER_FRACTION = 0.8;

function finite3(v: unknown): v is [number, number, number] {
  return Array.isArray(v) && Number.isFinite(v[0]) && Number.isFinite(v[1]) && Number.isFinite(v[2]);
}

/** Packs lights, silently dropping ones with NaN / zero / unknown fields so shading never sees NaN. */
export function packLights(lights: readonly RenderLight[] | undefined): PackedLights {
  const list = Array.isArray(lights) ? lights : [];
  const data = new Float64Array(Math.max(1, list.length) * LIGHT_STRIDE);
  const cone = new Float64Array(Math.max(1, list.length) * 2);
  let count = 0;
  let positional = false;
  for (const l of list) {
    if (!l || !finite3(l.color) || !Number.isFinite(l.intensity) || l.intensity <= 0) continue;
    const o = count * LIGHT_STRIDE;
    data[o + 4] = Math.max(0, l.color[0]) * l.intensity;
    data[o + 5] = Math.max(0, l.color[1]) * l.intensity;
    data[o + 6] = Math.max(0, l.color[2]) * l.intensity;
    if (l.type === "directional") {
      const d = finite3(l.direction) ? normalizeOrNull(-l.direction[0], -l.direction[1], -l.direction[2]) : null;
      if (!d) continue;
      data[o] = LIGHT_DIRECTIONAL;
      data.set(d, o + 1);
    } else if (l.type === "point" || l.type === "spot") {
      if (!finite3(l.position)) continue;
      data.set(l.position, o + 1);
      const range = Number.isFinite(l.range) && l.range > 0 ? l.range : Infinity;
      data[o + 7] = range;
      data[o + 8] = 1 / (range * range);
      data[o] = LIGHT_POINT;
      if (l.type === "spot") {
        const d = finite3(l.direction) ? normalizeOrNull(l.direction[0], l.direction[1], l.direction[2]) : null;
        if (!d) continue;
        data[o] = LIGHT_SPOT;
        data.set(d, o + 9);
        const half = Math.min(89.9, Math.max(0.1, Number.isFinite(l.angleDeg) ? l.angleDeg : 45));
        const cosOuter = Math.cos((half * Math.PI) / 180);
        const cosInner = Math.cos((half * SPOT_INNER_FRACTION * Math.PI) / 180);
        cone[count * 2] = cosOuter;
        cone[count * 2 + 1] = 1 / Math.max(1e-6, cosInner - cosOuter);
      }
      positional = true;
    } else {
      continue;
    }
    count++;
  }
  return { data, cone, count, positional };
}
