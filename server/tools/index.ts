/**
 * The tool registry: the single list every surface is derived from. Add a tool by defining it
 * in its own module and listing it here; nothing registers itself by import side effect.
 */
import type { ToolDefinition } from "./define-tool";
import { createGameObject, createLight, deleteObject, setTransform } from "./editor/objects";
import { getSceneTool, listObjects } from "./editor/reading";
import { createMaterial, createScene, openScene, setCamera, setMaterial } from "./editor/scenes";
import { takeScreenshot } from "./editor/take-screenshot";
import { saveAppFile } from "./editor/save-app-file";
import { releaseApp } from "./editor/release-app";
import { addModifier, setKeyframe } from "./editor/animation";
import { getPipelineStatus, importAsset, listTransferableAssetsTool, transferAssetTool } from "./pipeline";
import { RECIPE_TOOLS } from "./recipes";
import { addUser, getAuditLog, inviteUser, listUsers, removeUser, resetPassword, setUserRole } from "./teams-members";
import { createToken, listTokens, revokeToken, whoami } from "./teams-tokens";
import { getHistory } from "./history";
import { COLLAB_TOOLS } from "./teams-collab";
import { getUndoState, redo, undo } from "./undo";
import { beginTransaction, commitTransaction, getTransactionStatus, rollbackTransaction } from "./transactions";
import {
  createBranch, deleteVersion, diffVersions, listBranches, listVersions, restoreVersion, saveVersion, switchBranch,
} from "./version-control";

export const TOOLS = [
  createScene,
  openScene,
  createGameObject,
  createLight,
  setCamera,
  takeScreenshot,
  createMaterial,
  setMaterial,
  getSceneTool,
  listObjects,
  setTransform,
  deleteObject,
  undo,
  redo,
  getUndoState,
  setKeyframe,
  addModifier,
  saveAppFile,
  releaseApp,
  saveVersion,
  listVersions,
  restoreVersion,
  createBranch,
  listBranches,
  switchBranch,
  deleteVersion,
  diffVersions,
  getHistory,
  beginTransaction,
  commitTransaction,
  rollbackTransaction,
  getTransactionStatus,
  transferAssetTool,
  listTransferableAssetsTool,
  getPipelineStatus,
  importAsset,
  ...RECIPE_TOOLS,
  whoami,
  createToken,
  listTokens,
  revokeToken,
  listUsers,
  inviteUser,
  addUser,
  removeUser,
  setUserRole,
  resetPassword,
  getAuditLog,
  ...COLLAB_TOOLS,
] as const satisfies readonly ToolDefinition<any, any>[];

export type ToolName = (typeof TOOLS)[number]["name"];

const byName = new Map<string, ToolDefinition>(TOOLS.map((t) => [t.name, t as unknown as ToolDefinition]));

/** The tool of that name, or undefined. */
export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

/** Every tool, in catalogue order. */
export function allTools(): ToolDefinition[] {
  return [...byName.values()];
}
