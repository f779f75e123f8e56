/**
 * The working state of the current branch, held in memory, and the only way to change it.
 *
 * Invariants: every change goes through `execute` (editor operations) or `applyGroup`
 * (restores, rollbacks); each becomes one row of the operation log, written before the caller
 * is answered; `seq` increases strictly. Whole-state tasks (saving a version, switching branch)
 * run in `exclusive`, which waits for pending writes and holds new ones back.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { applyOperation } from "../scene/apply";
import { applyChanges, invertChanges, sameRecord } from "../scene/changes";
import { KilnError } from "../errors";
import type { AppId, Change, Operation, SceneEntity, SceneState } from "../scene/types";
import type { Db } from "../db/client";
import { OperationWriter, type OperationRow } from "./op-writer";
import { joinChanges, splitChanges } from "./op-blobs";
import { kilnEvents } from "../events/bus";
import { operationEvent } from "../events/operation-event";
import { currentCaller, type Actor } from "../teams/actor";
import { actorColumns } from "../teams/attribution";

/** Who is writing: lets transactions tag operations and refuse what they must refuse. */
export interface WriteHooks {
  /** Called before an operation is planned; may throw to refuse it. Returns the transaction id to tag. */
  beforeWrite?: (tool: string) => string | null;
  /**
   * Called with the changes an operation or group would make, before anything changes; may throw
   * to refuse it (soft locks: server/teams/locks.ts). `kind` is the log entry's kind.
   */
  guard?: (changes: Change[], kind: string) => void;
  /** Called once an operation is durably logged, in log order. */
  afterWrite?: (entry: { seq: number; kind: string; tool: string; changes: Change[]; transactionId: string | null }) => void;
  /**
   * Live applications (server/bridges): mirrors planned changes to the apps they touch before they
   * take effect here. Returns null when no live app is concerned; a rejection refuses the change,
   * which then has no effect anywhere.
   */
  mirror?: (changes: Change[], info: MirrorInfo) => Promise<void> | null;
  /** Live applications again, for a whole-state replacement (a branch switch). */
  mirrorState?: (before: SceneState, after: SceneState) => Promise<void> | null;
  /** Changes that were applied (and mirrored) but could not be logged, so were undone here. */
  reverted?: (changes: Change[]) => void;
  /**
   * Whether a tool's operation on `app` waits for a live application's answer. Such operations
   * take turns per app (a lane), and the shared queue is not held during the round trip, so one
   * slow app never holds writes to other apps or whole-state tasks (saving a version).
   */
  isLive?: (app: AppId) => boolean;
  /** A mirrored change that could not take effect here after all: the app must be set right again. */
  diverged?: (app: AppId) => void;
}

/** What is being mirrored: a tool's operation or a group (restore, rollback), and who caused it. */
export interface MirrorInfo {
  kind: string;
  tool: string;
  /** The live session the changes came from (a hand edit): it has them already. */
  origin?: unknown;
}

/**
 * How an operation is logged: its kind ("tool" unless said), for hand edits their source, and the
 * params to log when the planned ones are too bulky to keep twice (the changes hold the records).
 */
export interface ExecuteOptions {
  kind?: string;
  origin?: unknown;
  loggedParams?: Record<string, unknown>;
  /** Runs in turn, just before the operation is planned (a live app registering exactly there). */
  onTurn?: () => void;
  /** Who made it, when not the current caller (a live app's hand edit is its connection's). */
  actor?: Actor;
}

export interface AppliedOperation { seq: number; changes: Change[]; result: unknown }

/** Operations of a deferDurability scope whose log writes are still pending. */
const deferredWrites = new AsyncLocalStorage<Promise<unknown>[]>();

export class Workspace {
  readonly hooks: WriteHooks = {};
  /** Ids of records changed since the working state was loaded from its base snapshot. */
  dirty = new Set<string>();
  /** Number of object records, kept up to date so summaries never scan the state. */
  objectCount = 0;
  private writer: OperationWriter;
  /**
   * Every change is planned, mirrored and applied in memory one at a time, in this queue; whole-state
   * tasks (`exclusive`) take their turn in it too. Waiting for durability happens outside it, so
   * concurrent calls still share one fsync (group commit).
   */
  private queue: Promise<unknown> = Promise.resolve();
  /** Per live app: its operations waiting for the app's answer, one at a time (see WriteHooks.isLive). */
  private lanes = new Map<AppId, Promise<unknown>>();

  constructor(
    private db: Db,
    private stateMap: Map<string, SceneEntity>,
    public branch: string,
    private lastSeq: number,
    /** Root hash of the snapshot the working state was loaded from (see server/versioning). */
    public baseRoot: string,
  ) {
    this.writer = new OperationWriter(db, (rows) => this.revert(rows));
    this.objectCount = countObjects(stateMap);
  }

  /** The working state. Callers must not keep it across awaits if they need a consistent view. */
  get state(): SceneState {
    return this.stateMap;
  }

  get seq(): number {
    return this.lastSeq;
  }

  /** Plans and applies an editor operation, then waits until it is durably logged. */
  async execute(op: Operation, opts: ExecuteOptions = {}): Promise<AppliedOperation> {
    const kind = opts.kind ?? "tool";
    if (op.app && opts.origin === undefined && this.hooks.isLive?.(op.app)) return this.executeLive(op.app, op, kind, opts);
    const { applied, durable } = await this.inTurn(async () => {
      opts.onTurn?.();
      const transactionId = this.hooks.beforeWrite?.(op.tool) ?? null;
      const outcome = applyOperation(this.stateMap, op);
      this.hooks.guard?.(outcome.changes, kind);
      await this.hooks.mirror?.(outcome.changes, { kind, tool: op.tool, origin: opts.origin });
      return this.commit(kind, op.tool, op.app, opts.loggedParams ?? op.params, outcome.changes, outcome.result, transactionId, opts.actor);
    });
    await durable;
    return applied;
  }

  /**
   * An operation on a live app: planned in turn (and sent to the app from there, so the app gets
   * changes in Kiln's order), answered by the app outside the shared queue, then applied in turn if
   * nothing it touched changed meanwhile. If something did (a restore, an edit from elsewhere), it is
   * refused and the app is brought back to Kiln's state, so both sides agree.
   */
  private executeLive(app: AppId, op: Operation, kind: string, opts: ExecuteOptions): Promise<AppliedOperation> {
    return this.inLane(app, async () => {
      const planned = await this.inTurn(async () => {
        opts.onTurn?.();
        const transactionId = this.hooks.beforeWrite?.(op.tool) ?? null;
        const outcome = applyOperation(this.stateMap, op);
        this.hooks.guard?.(outcome.changes, kind);
        const mirrored = this.hooks.mirror?.(outcome.changes, { kind, tool: op.tool, origin: opts.origin }) ?? null;
        mirrored?.catch(() => undefined); // awaited below, outside the turn
        return { transactionId, outcome, mirrored };
      });
      await planned.mirrored;
      const { applied, durable } = await this.inTurn(async () => {
        const { outcome, transactionId } = planned;
        const stale = outcome.changes.some((c) => !sameRecord(this.stateMap.get(c.id) ?? null, c.before));
        let transactionNow: string | null = transactionId;
        try {
          transactionNow = this.hooks.beforeWrite?.(op.tool) ?? null;
        } catch {
          transactionNow = null;
        }
        if (planned.mirrored && (stale || transactionNow !== transactionId)) {
          this.hooks.diverged?.(app);
          throw new KilnError("CONFLICT", `The scene of ${app} changed while the live ${app} was applying "${op.tool}"; nothing changed, try again.`, 409, { app });
        }
        return this.commit(kind, op.tool, op.app, opts.loggedParams ?? op.params, outcome.changes, outcome.result, transactionId);
      });
      await durable;
      return applied;
    });
  }

  /**
   * Runs `start` in `app`'s lane and in turn, then waits for what it started (a request to the
   * app, already sent) outside the shared queue: pushing state to a live app without holding up
   * everyone else.
   */
  sendInTurn(app: AppId, start: () => Promise<void> | null | void): Promise<void> {
    return this.inLane(app, async () => {
      const sent = await this.inTurn(async () => {
        const p = start() ?? null;
        p?.catch(() => undefined);
        return { p };
      });
      await sent.p;
    });
  }

  private inLane<T>(app: AppId, fn: () => Promise<T>): Promise<T> {
    const run = (this.lanes.get(app) ?? Promise.resolve()).then(fn);
    const settled = run.then(() => undefined, () => undefined);
    this.lanes.set(app, settled);
    void settled.then(() => {
      if (this.lanes.get(app) === settled) this.lanes.delete(app);
    });
    return run;
  }

  /** Logs an event that changes no record (a live application connecting), in turn with the changes. */
  async note(kind: string, tool: string, app: AppId | null, params: Record<string, unknown>, actor?: Actor): Promise<AppliedOperation> {
    const { applied, durable } = await this.inTurn(async () => this.commit(kind, tool, app, params, [], null, null, actor));
    await durable;
    return applied;
  }

  /**
   * Applies a precomputed group of changes (a restore, a rollback) as one log entry.
   * Must be called inside `exclusive`.
   */
  async applyGroup(kind: string, tool: string, params: Record<string, unknown>, changes: Change[], transactionId: string | null = null): Promise<AppliedOperation> {
    this.hooks.guard?.(changes, kind);
    await this.hooks.mirror?.(changes, { kind, tool });
    const { applied, durable } = this.commit(kind, tool, null, params, changes, null, transactionId);
    await durable;
    return applied;
  }

  /** Runs `fn` when every change queued before it has been applied in memory. */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Applies changes in memory and queues their log row; `durable` settles when the row is written. */
  private commit(kind: string, tool: string, app: AppId | null, params: Record<string, unknown>, changes: Change[], result: unknown, transactionId: string | null, actor?: Actor): { applied: AppliedOperation; durable: Promise<void> } {
    this.apply(changes);
    for (const c of changes) this.dirty.add(c.id);
    const seq = ++this.lastSeq;
    // Read now: the write settles outside the caller's async context. A live application's edits
    // and connection notes are its own, whichever call happened to be in context.
    const caller = currentCaller();
    const source = kind === "live" || kind === "bridge" ? "live" : caller.source;
    const stored = splitChanges(changes);
    const row: OperationRow = {
      seq, branch: this.branch, kind, tool, app, params: JSON.stringify(params), changes: stored.text, blob: stored.blob,
      transactionId, source, createdAt: new Date(), ...actorColumns(actor ?? caller.actor),
    };
    const branch = this.branch;
    const written = this.writer.write(row).then(() => {
      this.hooks.afterWrite?.({ seq, kind, tool, changes, transactionId });
      // The one place every operation is announced (GET /events), once it is durable.
      kilnEvents().publish(operationEvent({ seq, branch, kind, tool, app, transactionId, changes }, source));
    });
    const pending = deferredWrites.getStore();
    let durable: Promise<void> = written;
    if (pending) {
      written.catch(() => undefined); // awaited by deferDurability
      pending.push(written);
      durable = Promise.resolve();
    }
    return { applied: { seq, changes, result }, durable };
  }

  /**
   * Runs `fn` with its operations answered as soon as they are applied in memory, and resolves
   * only once every one of them is durably logged (rejects with the first write failure). For a
   * sequence of calls whose only client is `fn` (a recipe run), one fsync per batch instead of
   * one per call; everyone else still waits for their own operations.
   */
  async deferDurability<T>(fn: () => Promise<T>): Promise<T> {
    const pending: Promise<unknown>[] = [];
    let outcome: PromiseSettledResult<T>;
    try {
      outcome = { status: "fulfilled", value: await deferredWrites.run(pending, fn) };
    } catch (reason) {
      outcome = { status: "rejected", reason };
    }
    const failed = (await Promise.allSettled(pending)).find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  }

  private apply(changes: Change[]): void {
    for (const c of changes) this.objectCount += (c.after?.type === "object" ? 1 : 0) - (c.before?.type === "object" ? 1 : 0);
    applyChanges(this.stateMap, changes);
  }

  /** Undoes operations whose log write failed, newest first. */
  private revert(rows: OperationRow[]): void {
    for (let i = rows.length - 1; i >= 0; i--) {
      const { changes, blob } = rows[i];
      const undo = invertChanges(blob ? joinChanges(changes, blob.join("")) : JSON.parse(changes));
      this.apply(undo);
      this.hooks.reverted?.(undo);
    }
    this.lastSeq = rows[0].seq - 1;
  }

  /** Runs `fn` with no other write in flight or allowed to start. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.inTurn(async () => {
      await this.writer.idle();
      return fn();
    });
  }

  /**
   * Replaces the whole working state (restore, branch switch) with a state loaded from the
   * snapshot `baseRoot` plus the changes in `dirty`. Must be called inside `exclusive`.
   */
  replaceState(branch: string, state: Map<string, SceneEntity>, baseRoot: string, dirty: Set<string>): void {
    this.branch = branch;
    this.stateMap = state;
    this.objectCount = countObjects(state);
    this.baseRoot = baseRoot;
    this.dirty = dirty;
  }

  /**
   * Brings live applications to `state` before it replaces the working state (a branch switch);
   * rejects, changing nothing, when one refuses. Must be called inside `exclusive`.
   */
  async mirrorState(state: SceneState, from: SceneState = this.stateMap): Promise<void> {
    await this.hooks.mirrorState?.(from, state);
  }

  /** Marks the working state as equal to the snapshot `root` (after a save). */
  markSaved(root: string): void {
    this.baseRoot = root;
    this.dirty = new Set();
  }

  /** Waits for every queued log write. */
  flush(): Promise<void> {
    return this.writer.idle();
  }

  get database(): Db {
    return this.db;
  }
}

function countObjects(state: ReadonlyMap<string, SceneEntity>): number {
  let n = 0;
  for (const r of state.values()) if (r.type === "object") n++;
  return n;
}
