/**
 * Transactions (DECISIONS.md, "Transactions"): one project-wide group of tool calls at a time.
 *
 * While one is open, every state-changing call joins it and takes effect at once; the changes it
 * made are kept (in memory, and in the operation log tagged with the transaction id), so rollback
 * applies their inverse and the scene is exactly what it was at begin. An open transaction
 * survives a restart: its rows in the log are reloaded at start-up.
 */
import { randomUUID } from "node:crypto";
import { conflict } from "../errors";
import type { Db } from "../db/client";
import { invertChanges, squashChanges } from "../scene/changes";
import type { Change } from "../scene/types";
import type { Workspace } from "../workspace/workspace";
import { kilnEvents } from "../events/bus";
import { readChanges } from "../workspace/op-blobs";
import { callerColumns } from "../teams/attribution";

type Row = Awaited<ReturnType<Db["transaction"]["findFirstOrThrow"]>>;

interface OpenTransaction { row: Row; changes: Change[]; operations: number; tools: string[] }

export class Transactions {
  private open: OpenTransaction | null = null;
  private last: Row | null = null;

  private constructor(private db: Db, private ws: Workspace) {
    ws.hooks.beforeWrite = () => this.open?.row.id ?? null;
    ws.hooks.afterWrite = ({ tool, changes, transactionId }) => {
      if (!this.open || transactionId !== this.open.row.id) return;
      for (const c of changes) this.open.changes.push(c);
      this.open.operations++;
      this.open.tools.push(tool);
    };
  }

  /** Loads the open transaction (if any) and the last finished one. */
  static async load(db: Db, ws: Workspace): Promise<Transactions> {
    const t = new Transactions(db, ws);
    const open = await db.transaction.findFirst({ where: { status: "open" } });
    if (open) {
      const ops = await db.operation.findMany({ where: { transactionId: open.id }, orderBy: { seq: "asc" }, select: { seq: true, changes: true, blobParts: true, tool: true } });
      t.open = { row: open, changes: (await readChanges(db, ops)).flat(), operations: ops.length, tools: ops.map((o) => o.tool) };
    }
    t.last = await db.transaction.findFirst({ where: { status: { not: "open" } }, orderBy: { endedAt: "desc" } });
    return t;
  }

  get isOpen(): boolean {
    return this.open !== null;
  }

  /** The open transaction's id and the last seq before it began (undo stops there), or null. */
  get openBounds(): { id: string; startSeq: number } | null {
    return this.open ? { id: this.open.row.id, startSeq: this.open.row.startSeq } : null;
  }

  /** Whether the open transaction asked to roll back on its first failing call. */
  get rollbackOnError(): boolean {
    return !!this.open?.row.rollbackOnError;
  }

  begin(name: string, rollbackOnError: boolean) {
    return this.ws.exclusive(async () => {
      if (this.open)
        throw conflict("TRANSACTION_ALREADY_OPEN", `Transaction "${this.open.row.name}" is already open; commit or roll it back first.`, { transaction: this.describeOpen() });
      const row = await this.db.transaction.create({
        data: { id: randomUUID(), name, status: "open", branch: this.ws.branch, startSeq: this.ws.seq, rollbackOnError, ...callerColumns() },
      });
      this.open = { row, changes: [], operations: 0, tools: [] };
      kilnEvents().publish({ kind: "transaction", action: "begun", id: row.id, name: row.name });
      return { transaction: this.describeOpen()! };
    });
  }

  commit() {
    return this.ws.exclusive(async () => {
      const open = this.requireOpen();
      this.last = await this.db.transaction.update({
        where: { id: open.row.id }, data: { status: "committed", endedAt: new Date(), endSeq: this.ws.seq },
      });
      this.open = null;
      kilnEvents().publish({ kind: "transaction", action: "committed", id: open.row.id, name: open.row.name });
      return { transaction: this.describeLast(open.operations)! };
    });
  }

  /** Restores every app's scene to its state at begin, as one logged operation. */
  rollback(reason = "requested") {
    return this.ws.exclusive(async () => {
      const open = this.requireOpen();
      const changes = squashChanges(invertChanges(open.changes));
      await this.ws.applyGroup("rollback", "rollback_transaction", { transaction: open.row.id, reason }, changes);
      this.last = await this.db.transaction.update({
        where: { id: open.row.id }, data: { status: "rolled_back", endedAt: new Date(), endSeq: this.ws.seq, reason },
      });
      this.open = null;
      kilnEvents().publish({ kind: "transaction", action: "rolled_back", id: open.row.id, name: open.row.name });
      return { transaction: this.describeLast(open.operations)!, restored_records: changes.length };
    });
  }

  private requireOpen(): OpenTransaction {
    if (!this.open) throw conflict("NO_OPEN_TRANSACTION", "No transaction is open.");
    return this.open;
  }

  private describeOpen() {
    const o = this.open;
    if (!o) return undefined;
    return {
      id: o.row.id, name: o.row.name, started_at: o.row.startedAt.toISOString(), operations: o.operations,
      tools: [...new Set(o.tools)], rollback_on_error: o.row.rollbackOnError,
    };
  }

  private describeLast(operations = 0) {
    const l = this.last;
    if (!l) return undefined;
    return {
      id: l.id, name: l.name, outcome: l.status as "committed" | "rolled_back", ended_at: l.endedAt!.toISOString(),
      operations, ...(l.reason && l.status === "rolled_back" ? { reason: l.reason } : {}),
    };
  }

  /** get_transaction_status. */
  async status() {
    const last = this.last ? this.describeLast(await this.db.operation.count({ where: { transactionId: this.last.id, kind: "tool" } })) : undefined;
    return { status: this.open ? ("open" as const) : ("none" as const), ...(this.open ? { transaction: this.describeOpen() } : {}), ...(last ? { last } : {}) };
  }
}
