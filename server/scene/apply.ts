/**
 * Operations are data: `applyOperation(state, op)` plans any editor operation by its tool name.
 * The table below is the whole set of state-changing editor operations.
 */
import { invalid } from "../errors";
import * as ops from "./operations";
import { addModifier, setKeyframe } from "./operations-animation";
import { importRecords } from "./operations-import";
import { syncRecords } from "./operations-sync";
import type { Operation, OperationOutcome, SceneState } from "./types";

// Each entry takes already-validated params (see server/tools); `app` comes from the operation.
const OPERATIONS: Record<string, (state: SceneState, params: any) => OperationOutcome> = {
  create_scene: ops.createScene,
  open_scene: ops.openScene,
  create_gameobject: ops.createGameObject,
  create_light: ops.createLight,
  set_camera: ops.setCamera,
  create_material: ops.createMaterial,
  set_material: ops.setMaterial,
  set_transform: ops.setTransform,
  delete_object: ops.deleteObject,
  set_keyframe: setKeyframe,
  add_modifier: addModifier,
  // Both pipeline tools add a converted asset through the same atomic import (one log entry each).
  transfer_asset: importRecords,
  import_asset: importRecords,
  // What a live application reports (server/bridges): a hand edit, or its whole scene on connect.
  live_edit: syncRecords,
  live_adopt: syncRecords,
};

/** Whether the scene core knows how to apply this tool's operation. */
export function isSceneOperation(tool: string): boolean {
  return Object.hasOwn(OPERATIONS, tool);
}

/** Plans an operation against a state: the changes it makes and its result. Pure. */
export function applyOperation(state: SceneState, op: Operation): OperationOutcome {
  const fn = OPERATIONS[op.tool];
  if (!fn) throw invalid("UNKNOWN_OPERATION", `"${op.tool}" is not a scene operation.`);
  return fn(state, { ...op.params, app: op.app });
}
