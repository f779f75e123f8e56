/**
 * Where two renders of the same camera differ: pixels whose colour moved by more than a little
 * are counted on a grid of tiles, and touching changed tiles are merged into rectangles, which the
 * diff view draws over both images.
 */
export interface Rect { x: number; y: number; w: number; h: number }

const TILE = 8;
const THRESHOLD = 24; // summed RGB difference: below it, noise of the software renderer

export function changedRegions(a: Uint8ClampedArray, b: Uint8ClampedArray, width: number, height: number): { rects: Rect[]; pixels: number } {
  const cols = Math.ceil(width / TILE), rows = Math.ceil(height / TILE);
  const hot = new Uint8Array(cols * rows);
  let pixels = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > THRESHOLD) {
        pixels++;
        hot[((y / TILE) | 0) * cols + ((x / TILE) | 0)] = 1;
      }
    }
  }
  // Flood-fill touching tiles (8-neighbours) into one bounding rectangle each.
  const seen = new Uint8Array(cols * rows);
  const rects: Rect[] = [];
  for (let start = 0; start < hot.length; start++) {
    if (!hot[start] || seen[start]) continue;
    let minX = cols, minY = rows, maxX = -1, maxY = -1;
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const t = stack.pop()!;
      const tx = t % cols, ty = (t / cols) | 0;
      minX = Math.min(minX, tx); maxX = Math.max(maxX, tx); minY = Math.min(minY, ty); maxY = Math.max(maxY, ty);
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
        const nx = tx + dx, ny = ty + dy;
        if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
        const n = ny * cols + nx;
        if (hot[n] && !seen[n]) { seen[n] = 1; stack.push(n); }
      }
    }
    rects.push({ x: minX * TILE, y: minY * TILE, w: Math.min(width, (maxX + 1) * TILE) - minX * TILE, h: Math.min(height, (maxY + 1) * TILE) - minY * TILE });
  }
  return { rects, pixels };
}
