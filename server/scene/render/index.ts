/**
 * Public surface of the headless software rasterizer (see README.md).
 * Pure TypeScript: no Node, DOM or third-party imports.
 */
export type { Vec3, Rgba, RenderCamera, RenderMesh, RenderLight, RenderInput, RenderOutput, RenderOverlay, RenderSky, RenderTexture, RenderImage } from "./types";
export { renderScene, planFrame, renderBand, drawFrameLabels, supersampleFor, DEFAULT_AMBIENT, DEFAULT_SUPERSAMPLE, type FramePlan } from "./render";
export { DEFAULT_SKY } from "./sky";
export { MAX_SHADOW_MAP_TEXELS, type ShadowShare } from "./shadow";
export { linearToSrgb8, sceneToSrgb8, toneMap } from "./color";
