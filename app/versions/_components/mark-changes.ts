/**
 * Where two renders of the same camera differ. Pixels whose colour moved by more than a little
 * are counted; touching changed 8 px tiles are merged into rectangles, which the diff view boxes.
 *
 * A lighting change (a light's intensity, colour or direction; the exposure) moves most pixels a
 * little, and boxing every changed tile would give one box round the whole image. So when a large
 * share of the image changed, the boxes mark only what that tone change does not explain: each
 * pixel's "before" colour is mapped through the change seen on all pixels of about the same
 * colour (a colour transfer learnt from the two images, 16 levels per channel), and only pixels
 * that still differ from that prediction are boxed (an object moved, a shadow appeared). The heat
 * map shows every changed pixel, with its magnitude, so the lighting change itself stays visible.
 */
export interface Rect { x: number; y: number; w: number; h: number }

/** The comparison of two images: regions to box, counts, and a heat map of every changed pixel. */
export interface Comparison {
  rects: Rect[];
  /** Pixels whose colour changed beyond the renderer's noise. */
  pixels: number;
  /** Share of the image whose colour changed (0..1). */
  share: number;
  /** Set when a tone change over much of the image was taken out before boxing: the share it explains. */
  lighting?: { explained: number };
  /** Per pixel, how much it changed (0 unchanged .. 255 most), for the heat map. */
  magnitude: Uint8Array;
  /** Per pixel, 1 where the change is the image-wide tone change (with `lighting` only). */
  explained?: Uint8Array;
}

const TILE = 8;
const THRESHOLD = 24; // summed RGB difference: below it, noise of the software renderer
/** Past this share of changed pixels, a tone change is taken out before boxing. */
const GLOBAL_SHARE = 0.2;
/** A colour's mapping is trusted when at least this share of the image (and 64 pixels) has it. */
const TRUSTED_SHARE = 0.002;
/** How far (natural log) a colour's hue shift may be from the image's to count as the same lighting change. */
const HUE_TOLERANCE = Math.log(1.3);
/** After a lighting change, the least share of the image a leftover group must cover to be boxed. */
const MIN_LEFTOVER_SHARE = 0.0004;
/** Magnitude that reads as fully hot in the heat map (summed RGB difference). */
const HOT = 180;

const diffAt = (a: Uint8ClampedArray, b: Uint8ClampedArray, i: number) =>
  Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]);
const bin = (p: Uint8ClampedArray, i: number) => ((p[i] >> 4) << 8) | ((p[i + 1] >> 4) << 4) | (p[i + 2] >> 4);

interface Transfer { gain: Float64Array; trusted: Uint8Array }

/**
 * The colour transfer from "before" to "after": per quantised before-colour, a gain per channel
 * from the mean before and after colours of its pixels (`skip`: pixels left out). A colour's gain
 * is trusted when enough pixels have it and it keeps the hue shift most of the image has (a
 * coloured light shifts every colour alike; a red object replaced by a grey ground does not).
 */
function learnTransfer(a: Uint8ClampedArray, b: Uint8ClampedArray, n: number, skip?: (p: number) => boolean): Transfer {
  const count = new Uint32Array(4096);
  const sumA = new Float64Array(4096 * 3), sumB = new Float64Array(4096 * 3);
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    if (skip?.(p)) continue;
    const k = bin(a, i);
    count[k]++;
    for (let c = 0; c < 3; c++) { sumA[k * 3 + c] += a[i + c]; sumB[k * 3 + c] += b[i + c]; }
  }
  const gain = new Float64Array(4096 * 3);
  const trusted = new Uint8Array(4096);
  const enough = Math.max(64, n * TRUSTED_SHARE);
  const shifts: { g: number; b: number; w: number }[] = [];
  for (let k = 0; k < 4096; k++) {
    if (!count[k]) continue;
    // +1 per pixel and channel: black stays defined.
    for (let c = 0; c < 3; c++) gain[k * 3 + c] = (sumB[k * 3 + c] + count[k]) / (sumA[k * 3 + c] + count[k]);
    if (count[k] >= enough) shifts.push({ g: Math.log(gain[k * 3 + 1] / gain[k * 3]), b: Math.log(gain[k * 3 + 2] / gain[k * 3]), w: count[k] });
  }
  const g0 = weightedMedian(shifts, (s) => s.g), b0 = weightedMedian(shifts, (s) => s.b);
  for (let k = 0; k < 4096; k++) {
    if (count[k] < enough) continue;
    const sg = Math.log(gain[k * 3 + 1] / gain[k * 3]), sb = Math.log(gain[k * 3 + 2] / gain[k * 3]);
    if (Math.abs(sg - g0) < HUE_TOLERANCE && Math.abs(sb - b0) < HUE_TOLERANCE) trusted[k] = 1;
  }
  return { gain, trusted };
}

function weightedMedian<T extends { w: number }>(items: T[], value: (t: T) => number): number {
  const sorted = [...items].sort((x, y) => value(x) - value(y));
  const half = sorted.reduce((s, t) => s + t.w, 0) / 2;
  let seen = 0;
  for (const t of sorted) if ((seen += t.w) >= half) return value(t);
  return 0;
}

/** Per pixel, how far "after" is from what the transfer predicts (its plain difference where the colour is not trusted). */
function residuals(a: Uint8ClampedArray, b: Uint8ClampedArray, n: number, t: Transfer): Float32Array {
  const out = new Float32Array(n);
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const k = bin(a, i);
    if (!t.trusted[k]) { out[p] = diffAt(a, b, i); continue; }
    let r = 0;
    for (let c = 0; c < 3; c++) r += Math.abs(b[i + c] - Math.min(255, (a[i + c] + 1) * t.gain[k * 3 + c] - 1));
    out[p] = r;
  }
  return out;
}

/**
 * Per pixel, what the image-wide colour transfer does not explain. It is learnt twice, the second
 * time without the pixels the first one could not explain, so a moved object does not bend the
 * transfer of the colour it now covers.
 */
function unexplained(a: Uint8ClampedArray, b: Uint8ClampedArray, n: number): Float32Array {
  const first = residuals(a, b, n, learnTransfer(a, b, n));
  return residuals(a, b, n, learnTransfer(a, b, n, (p) => first[p] > THRESHOLD));
}

/**
 * Rectangles round each group of touching hot tiles (8-neighbours); `hot` counts each tile's
 * changed pixels, and a group with fewer than `min` of them is dropped.
 */
function regions(hot: Uint16Array, cols: number, rows: number, width: number, height: number, min: number): Rect[] {
  const seen = new Uint8Array(cols * rows);
  const rects: Rect[] = [];
  for (let start = 0; start < hot.length; start++) {
    if (!hot[start] || seen[start]) continue;
    let minX = cols, minY = rows, maxX = -1, maxY = -1, pixels = 0;
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const t = stack.pop()!;
      const tx = t % cols, ty = (t / cols) | 0;
      pixels += hot[t];
      minX = Math.min(minX, tx); maxX = Math.max(maxX, tx); minY = Math.min(minY, ty); maxY = Math.max(maxY, ty);
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
        const nx = tx + dx, ny = ty + dy;
        if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
        const m = ny * cols + nx;
        if (hot[m] && !seen[m]) { seen[m] = 1; stack.push(m); }
      }
    }
    if (pixels >= min) rects.push({ x: minX * TILE, y: minY * TILE, w: Math.min(width, (maxX + 1) * TILE) - minX * TILE, h: Math.min(height, (maxY + 1) * TILE) - minY * TILE });
  }
  return rects;
}

/** Compares two RGBA images of the same size (see the module comment). */
export function compareImages(a: Uint8ClampedArray, b: Uint8ClampedArray, width: number, height: number): Comparison {
  const n = width * height;
  const cols = Math.ceil(width / TILE), rows = Math.ceil(height / TILE);
  const magnitude = new Uint8Array(n);
  let pixels = 0;
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const d = diffAt(a, b, i);
    if (d > THRESHOLD) {
      pixels++;
      magnitude[p] = Math.max(1, Math.min(255, Math.round((d * 255) / HOT)));
    }
  }
  const share = n ? pixels / n : 0;
  const residual = share > GLOBAL_SHARE ? unexplained(a, b, n) : undefined;
  const hot = new Uint16Array(cols * rows);
  const explainedMask = residual ? new Uint8Array(n) : undefined;
  let explained = 0;
  for (let p = 0; p < n; p++) {
    if (!magnitude[p]) continue;
    if (residual && residual[p] <= THRESHOLD) {
      explained++;
      explainedMask![p] = 1;
      continue;
    }
    const x = p % width, y = (p / width) | 0;
    hot[((y / TILE) | 0) * cols + ((x / TILE) | 0)]++;
  }
  // After a lighting change, thin seams where lit and unlit colours blend (the horizon, edges)
  // are left over in small groups; a group must hold a few rows' worth of pixels to be boxed.
  const min = residual ? Math.max(24, n * MIN_LEFTOVER_SHARE) : 1;
  return {
    rects: regions(hot, cols, rows, width, height, min), pixels, share, magnitude,
    ...(residual ? { lighting: { explained: explained / n }, explained: explainedMask } : {}),
  };
}

/** Boxes and counts only (the earlier interface): see compareImages. */
export function changedRegions(a: Uint8ClampedArray, b: Uint8ClampedArray, width: number, height: number): { rects: Rect[]; pixels: number } {
  const { rects, pixels } = compareImages(a, b, width, height);
  return { rects, pixels };
}

/**
 * The heat map as RGBA: the "after" image dimmed to grey, with each changed pixel coloured by
 * how much it changed: dark red through orange to pale yellow, or in blues where the change is
 * the image-wide tone change (a lighting change) that the boxes leave out.
 */
export function heatImage(after: Uint8ClampedArray, comparison: Pick<Comparison, "magnitude" | "explained">): Uint8ClampedArray<ArrayBuffer> {
  const { magnitude, explained } = comparison;
  const out = new Uint8ClampedArray(after.length);
  for (let p = 0, i = 0; p < magnitude.length; p++, i += 4) {
    const grey = (after[i] * 0.3 + after[i + 1] * 0.59 + after[i + 2] * 0.11) * 0.3;
    const m = magnitude[p];
    if (!m) { out[i] = out[i + 1] = out[i + 2] = grey; out[i + 3] = 255; continue; }
    const t = m / 255;
    const alpha = 0.55 + 0.45 * t;
    const [r, g, bl] = explained?.[p] ? coolRamp(t) : ramp(t);
    out[i] = grey * (1 - alpha) + r * alpha;
    out[i + 1] = grey * (1 - alpha) + g * alpha;
    out[i + 2] = grey * (1 - alpha) + bl * alpha;
    out[i + 3] = 255;
  }
  return out;
}

/** A warm colour ramp: 0 dark red, 0.5 orange, 1 pale yellow. */
function ramp(t: number): [number, number, number] {
  if (t < 0.5) {
    const u = t / 0.5;
    return [140 + 115 * u, 20 + 120 * u, 20];
  }
  const u = (t - 0.5) / 0.5;
  return [255, 140 + 110 * u, 20 + 180 * u];
}

/** The ramp of the tone change: 0 deep blue, 1 pale cyan. */
function coolRamp(t: number): [number, number, number] {
  return [30 + 120 * t, 60 + 170 * t, 150 + 105 * t];
}
