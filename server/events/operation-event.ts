/** Turns a logged operation into its event (see ./types.ts, OperationEvent). */
import type { AppId, Change } from "../scene/types";
import type { EventSource, OperationEvent } from "./types";

/** Past this many changed records an event carries only their count; pages reload instead. */
export const MAX_RECORDS = 200;

export interface LoggedOperation {
  seq: number; branch: string; kind: string; tool: string; app: AppId | null; transactionId: string | null; changes: Change[];
}

/** The event for one logged operation. */
export function operationEvent(op: LoggedOperation, source: EventSource): OperationEvent {
  const scenes = new Set<string>();
  let small = op.changes.length <= MAX_RECORDS;
  for (const c of op.changes) {
    const r = c.after ?? c.before;
    if (r?.type === "mesh") small = false;
    else if (r?.type === "object") scenes.add(`${r.app}/${r.scene}`);
    else if (r?.type === "scene") scenes.add(`${r.app}/${r.name}`);
  }
  return {
    kind: "operation", seq: op.seq, branch: op.branch, app: op.app, scenes: [...scenes], tool: op.tool, op: op.kind,
    source: op.kind === "live" ? "live" : source, transaction: op.transactionId, changes: op.changes.length,
    ...(small ? { records: op.changes.map((c) => ({ id: c.id, after: c.after })) } : {}),
  };
}
