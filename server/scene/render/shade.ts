/**
 * Per-sample shading, all in linear light:
 *
 *   colour = diffuse x hemisphere(n)  +  F_rough(n.v) x environment(reflection)
 *          + sum over lights of  E x shadow x (diffuse + pi x GGX specular)
 *
 * with diffuse = base x (1 - metallic), F0 = mix(0.04, base, metallic) (the glTF metal/rough
 * model), E = colour x intensity x max(0, n.l) x falloff, and the specular lobe Cook-Torrance
 * with the GGX distribution, Schlick's Fresnel and the Schlick-GGX visibility term. Light
 * intensity 1 head-on lights a white Lambert surface to exactly 1.0 (the renderer's
 * unit), which is why specular is multiplied by pi: a physical Lambert BRDF is base / pi.
 * The result is exposed, tone-mapped (ACES fit, color.ts) and stored as display-linear.
 */
import { LIGHT_DIRECTIONAL, LIGHT_SPOT, LIGHT_STRIDE } from "./lights";
import type { RasterState } from "./raster";
import { shadowFactor } from "./shadow";

const STRIDE = LIGHT_STRIDE;
const DIRECTIONAL = LIGHT_DIRECTIONAL;
const SPOT = LIGHT_SPOT;
const shadowAt = shadowFactor;

/** Exposed radiance above which ACES gives 1 anyway (it reaches 1 at ~7.2); NaN and negatives give 0. */
function exposed(x: number): number {
  return x > 0 ? (x < 64 ? x : 64) : 0;
}

/** Shades sample `si` at st.at (world position p, unit normal n facing the viewer's side) into st.color. */
export function shadeSample(st: RasterState, si: number): void {
  const P = st.params, S = st.scene, sky = st.sky, AT = st.at;
  const px = AT[0], py = AT[1], pz = AT[2], nx = AT[3], ny = AT[4], nz = AT[5];
  // View vector.
  let vx = S[0] - px, vy = S[1] - py, vz = S[2] - pz;
  const vl = 1 / Math.sqrt(vx * vx + vy * vy + vz * vz + 1e-30);
  vx *= vl; vy *= vl; vz *= vl;
  const ndvRaw = nx * vx + ny * vy + nz * vz;
  const ndv = ndvRaw < 1e-4 ? 1e-4 : ndvRaw;
  const dr = P[12], dg = P[13], db = P[14];
  const f0r = P[9], f0g = P[10], f0b = P[11];
  const rough = P[15], alpha = P[4];

  // Hemisphere light (sky above, estimated ground bounce below).
  const t = 0.5 + 0.5 * ny;
  const hr = sky[12] + (sky[9] - sky[12]) * t, hg = sky[13] + (sky[10] - sky[13]) * t, hb = sky[14] + (sky[11] - sky[14]) * t;
  let cr = dr * hr, cg = dg * hg, cb = db * hb;

  // Environment specular: the sky (or the ground bounce) in the mirror direction, blurred towards the
  // hemisphere average as roughness grows; Fresnel with roughness (Lagarde) keeps rough grazing surfaces dim.
  const ry = 2 * ndv * ny - vy;
  let er: number, eg: number, eb: number;
  const amb = S[4];
  if (ry >= 0) {
    const k = ry < 1 ? ry : 1;
    er = (sky[3] + (sky[0] - sky[3]) * k) * amb; eg = (sky[4] + (sky[1] - sky[4]) * k) * amb; eb = (sky[5] + (sky[2] - sky[5]) * k) * amb;
  } else {
    er = sky[12]; eg = sky[13]; eb = sky[14];
  }
  er += (hr - er) * rough; eg += (hg - eg) * rough; eb += (hb - eb) * rough;
  const fv = 1 - ndv, fv5 = fv * fv * fv * fv * fv;
  const g = 1 - rough;
  cr += (f0r + ((g > f0r ? g : f0r) - f0r) * fv5) * er;
  cg += (f0g + ((g > f0g ? g : f0g) - f0g) * fv5) * eg;
  cb += (f0b + ((g > f0b ? g : f0b) - f0b) * fv5) * eb;
  // Nearby objects hide part of the sky and ground bounce: the rasterizer has put the occlusion
  // in st.ao (occlusion.ts) when the mesh has occluders.
  if (st.occluders !== null) {
    const A = st.ao;
    cr = cr * A[0] + dr * A[1]; cg = cg * A[0] + dg * A[2]; cb = cb * A[0] + db * A[3];
  }

  // Direct lights.
  const L = st.lights.data, cone = st.lights.cone, nLights = st.lights.count, maps = st.shadows;
  const a2 = alpha * alpha, kv = alpha * 0.5;
  const visV = ndv * (1 - kv) + kv;
  for (let li = 0, o = 0; li < nLights; li++, o += STRIDE) {
    let lx = L[o + 1], ly = L[o + 2], lz = L[o + 3];
    let att = 1;
    if (L[o] !== DIRECTIONAL) {
      lx -= px; ly -= py; lz -= pz;
      const d2 = lx * lx + ly * ly + lz * lz;
      const f = 1 - d2 * L[o + 8]; // smooth window (1 - (d/range)^2)^2
      if (f <= 0) continue;
      att = f * f;
      const id = 1 / Math.sqrt(d2 + 1e-30);
      lx *= id; ly *= id; lz *= id;
      if (L[o] === SPOT) {
        const cd = -(lx * L[o + 9] + ly * L[o + 10] + lz * L[o + 11]);
        const co = cone[li * 2];
        if (cd <= co) continue;
        let s = (cd - co) * cone[li * 2 + 1];
        if (s < 1) { s = s * s * (3 - 2 * s); att *= s; }
      }
    }
    const ndl = nx * lx + ny * ly + nz * lz;
    if (ndl <= 0) continue;
    const map = maps[li];
    if (map !== null) {
      att *= shadowAt(map, AT);
      if (att <= 0) continue;
    }
    // The GGX lobe, with the half vector h = (l + v) / |l + v| never formed: (n.h)^2 =
    // (n.l + n.v)^2 / |l + v|^2 and, l and v being unit vectors, v.h = |l + v| / 2. One square root
    // and two divisions (pi x D x vis as one fraction) instead of a reciprocal square root and
    // three: this runs per pixel and light, and divisions were most of its time.
    const hx = lx + vx, hy = ly + vy, hz = lz + vz;
    const h2 = hx * hx + hy * hy + hz * hz;
    const nlv = ndl + ndvRaw;
    let ndh2 = (nlv * nlv) / (h2 + 1e-30);
    if (ndh2 > 1) ndh2 = 1;
    const dd = ndh2 * (a2 - 1) + 1;
    const fh = 1 - 0.5 * Math.sqrt(h2), fh5 = fh * fh * fh * fh * fh;
    // pi x D x vis = pi x a2 / (pi dd^2) x 1 / (4 (n.l (1 - k) + k) vis_v).
    const spec = a2 / (4 * dd * dd * (ndl * (1 - kv) + kv) * visV);
    const e = ndl * att;
    cr += e * L[o + 4] * (dr + spec * (f0r + (1 - f0r) * fh5));
    cg += e * L[o + 5] * (dg + spec * (f0g + (1 - f0g) * fh5));
    cb += e * L[o + 6] * (db + spec * (f0b + (1 - f0b) * fh5));
  }
  // ACES (color.ts toneMap) on the three channels with one division: y = N / D per channel, and
  // 1 / (Dr Dg Db) shared (each D is 0.14..~10^4 for inputs clamped to 0..64, so no overflow).
  const ex = S[3], c = st.color, o3 = si * 3;
  const xr = exposed(cr * ex), xg = exposed(cg * ex), xb = exposed(cb * ex);
  const Dr = xr * (2.43 * xr + 0.59) + 0.14, Dg = xg * (2.43 * xg + 0.59) + 0.14, Db = xb * (2.43 * xb + 0.59) + 0.14;
  const inv = 1 / (Dr * Dg * Db);
  const yr = xr * (2.51 * xr + 0.03) * Dg * Db * inv, yg = xg * (2.51 * xg + 0.03) * Dr * Db * inv, yb = xb * (2.51 * xb + 0.03) * Dr * Dg * inv;
  c[o3] = yr < 1 ? yr : 1;
  c[o3 + 1] = yg < 1 ? yg : 1;
  c[o3 + 2] = yb < 1 ? yb : 1;
}
