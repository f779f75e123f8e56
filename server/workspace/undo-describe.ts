/**
 * What an undo step is, in words people read: "move Box", "transaction \"layout\"", "edit in
 * Blender", with when and by whom. Read from the log entries' tool and (small) params only, never
 * their changes, so the Studio can ask on every change without reading a big import back.
 */
import type { Db } from "../db/client";
import { readActor, type ActorOut } from "../teams/attribution";

/** One undo or redo step as get_undo_state shows it. */
export interface StepInfo {
  /** The log entries of the step (several for a committed transaction). */
  steps: number[];
  tools: string[];
  /** "move Box", "create Lamp", "transaction \"layout\"". */
  label: string;
  /** When the step's last entry was logged. */
  at: string;
  by: ActorOut;
}

const VERBS: Record<string, string> = {
  set_transform: "move", create_gameobject: "create", create_light: "create light", delete_object: "delete", create_material: "create material",
  set_material: "set material of", create_scene: "create scene", set_camera: "set camera", set_keyframe: "set keyframe on", add_modifier: "add modifier to",
  import_asset: "import", transfer_asset: "transfer", live_edit: "edit in", live_adopt: "adopt", redo: "redo",
};

const APP_NAMES: Record<string, string> = { blender: "Blender", godot: "Godot", unity: "Unity" };

function labelOf(tool: string, app: string | null, params: Record<string, unknown>): string {
  const verb = VERBS[tool] ?? tool.replaceAll("_", " ");
  if (tool === "live_edit" || tool === "live_adopt") return `${verb} ${APP_NAMES[app ?? ""] ?? app ?? "a live app"}`;
  const target = [params.target, params.name, params.asset].find((v): v is string => typeof v === "string");
  return target ? `${verb} ${target}` : verb;
}

/** Describes the step made of log entries `seqs` (a redo entry is described by what it redid). */
export async function describeStep(db: Db, seqs: number[]): Promise<StepInfo> {
  const rows = await db.operation.findMany({ where: { seq: { in: seqs } }, orderBy: { seq: "asc" } });
  const last = rows.at(-1)!;
  const tools = [...new Set(rows.map((r) => r.tool))];
  let label: string;
  const tx = last.transactionId && rows.length > 1 ? await db.transaction.findUnique({ where: { id: last.transactionId }, select: { name: true } }) : null;
  if (tx) label = `transaction "${tx.name}"`;
  else if (last.kind === "redo") {
    const of = (JSON.parse(last.params) as { of?: number[] }).of ?? [];
    label = of.length ? (await describeStep(db, of)).label : "redo";
  } else label = labelOf(last.tool, last.app, JSON.parse(last.params));
  return { steps: seqs, tools, label, at: last.createdAt.toISOString(), by: readActor(last) };
}
