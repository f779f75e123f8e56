/**
 * Public surface of the headless software rasterizer (see README.md).
 * Pure TypeScript: no Node, DOM or third-party imports.
 */
export type { Vec3, Rgba, RenderCamera, RenderMesh, RenderLight, RenderInput, RenderOutput } from "./types";
export { renderScene, DEFAULT_BACKGROUND, DEFAULT_AMBIENT } from "./render";
export { linearToSrgb8 } from "./color";
