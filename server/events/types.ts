/**
 * What `GET /events` sends: one JSON object per `data:` line, `{ id, at, kind, ... }`.
 * docs/api.md ("Events") describes each kind for clients.
 */
import type { AppId, SceneEntity } from "../scene/types";

/** Where a change came from. */
export const EVENT_SOURCES = ["http", "mcp", "recipe", "live", "cli", "internal"] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

export const EVENT_KINDS = ["operation", "version", "branch", "transaction", "run", "transfer", "lock", "presence"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** A record an operation changed: its id and its value after (null: deleted). Meshes are left out. */
export interface ChangedRecord { id: string; after: SceneEntity | null }

/** One logged operation: a tool call, a live edit, a restore, a rollback, an undo or a redo. */
export interface OperationEvent {
  kind: "operation";
  seq: number;
  branch: string;
  /** The operation's app; null for groups that may span apps (restore, rollback). */
  app: AppId | null;
  /** The scenes whose records it changed, as "app/scene". */
  scenes: string[];
  tool: string;
  /** The log entry's kind: tool, live, restore, rollback, undo, redo, connect… */
  op: string;
  source: EventSource;
  transaction: string | null;
  /** How many records changed. */
  changes: number;
  /**
   * The changed records themselves when there are at most MAX_RECORDS and none is a mesh, so a
   * page can update without fetching; otherwise absent and the page reloads what it shows.
   */
  records?: ChangedRecord[];
}

export interface VersionEvent { kind: "version"; action: "saved" | "restored" | "deleted"; version_id: string; branch: string; name?: string }
export interface BranchEvent { kind: "branch"; action: "created" | "switched"; name: string }
export interface TransactionEvent { kind: "transaction"; action: "begun" | "committed" | "rolled_back"; id: string; name: string }
export interface RunEvent { kind: "run"; action: "started" | "finished"; run_id: string; recipe: string; status: string }
export interface TransferEvent {
  kind: "transfer"; action: "started" | "finished"; transfer_id: string; status: string; source_app: string; target_app: string; asset: string;
}

/** A soft lock taken, released by its holder, broken by an owner (`by`), expired, or gone with its session (docs/teams.md). */
export interface LockEvent {
  kind: "lock"; action: "locked" | "unlocked" | "broken" | "expired" | "released";
  lock: import("../teams/locks").LockView; by?: string;
}
/** Someone arrived, moved in the Studio (page, scene, selection, recipe) or left (docs/teams.md, "Presence"). */
export interface PresenceEvent {
  kind: "presence"; action: "joined" | "moved" | "left";
  presence: import("../teams/presence").PresenceView;
}

/** An event before the bus numbers and dates it. */
export type KilnEventBody = OperationEvent | VersionEvent | BranchEvent | TransactionEvent | RunEvent | TransferEvent | LockEvent | PresenceEvent;

/** An event as streams send it. */
export type KilnEvent = KilnEventBody & { id: number; at: string };
