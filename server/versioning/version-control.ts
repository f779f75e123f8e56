/**
 * The version-control tools' behaviour (DECISIONS.md, "Version control"): versions are
 * snapshots of the whole working state; each branch keeps its own working state; nothing a user
 * made is ever lost (restore auto-saves unsaved work first). Every change to versions or
 * branches runs inside `workspace.exclusive`, so ids stay sequential under concurrent calls.
 */
import { conflict, invalid, notFound } from "../errors";
import type { Db } from "../db/client";
import { Prisma } from "../db/generated/sqlite/client";
import type { Change, SceneEntity, SceneState } from "../scene/types";
import type { Workspace } from "../workspace/workspace";
import { BRANCH_NAME, parseVersionId, versionId } from "./ids";
import { CURRENT_BRANCH_KEY, initialSnapshot } from "./load";
import type { ObjectStore } from "./object-store";
import { loadBranchState, loadSnapshot, slicer, snapshotWorking } from "./snapshots";
import { diffTrees, diffTreesInSlices, type RecordRef } from "./tree";
import { describeDiff } from "./diff";
import { kilnEvents } from "../events/bus";
import { callerColumns, personWhere, readActor, type ActorOut } from "../teams/attribution";

type VersionRow = Awaited<ReturnType<Db["version"]["findFirstOrThrow"]>>;
type BranchRow = Awaited<ReturnType<Db["branch"]["findFirstOrThrow"]>>;
/** What a save reads of its branch: the row's fields it needs and its head's root. */
type SaveBranch = { name: string; head: number | bigint | null; workRoot: string; headRoot: string | null };

const VERSION_SEQ_KEY = "version_seq";

/** The public shape of a version. */
export function describeVersion(v: VersionRow) {
  return {
    version_id: versionId(v.number), name: v.name, description: v.description, branch: v.branch,
    parent: v.parent === null ? null : versionId(v.parent), created_at: v.createdAt.toISOString(), auto: v.auto,
    summary: { objects: v.objects, changes: v.changes }, saved_by: readActor(v),
  };
}

export class VersionControl {
  /** Filled by transactions: version and branch changes are refused while one is open. */
  transactionOpen: () => boolean = () => false;

  constructor(private db: Db, private ws: Workspace, private store: ObjectStore) {}

  private guard() {
    if (this.transactionOpen())
      throw conflict("TRANSACTION_OPEN", "A transaction is open; commit or roll it back before changing versions or branches.");
  }

  private async version(id: string, field = "version_id"): Promise<VersionRow> {
    const n = parseVersionId(id, field);
    const v = await this.db.version.findUnique({ where: { number: n } });
    if (!v) throw notFound("VERSION_NOT_FOUND", `There is no version ${id}.`, { field, version_id: id });
    return v;
  }

  private async branchRow(name: string): Promise<BranchRow> {
    const b = await this.db.branch.findUnique({ where: { name } });
    if (!b) throw notFound("BRANCH_NOT_FOUND", `There is no branch named "${name}".`, { field: "name", name });
    return b;
  }

  /** Saves the working state as a new version on the current branch. */
  save(name: string, description = "", auto = false) {
    return this.ws.exclusive(async () => {
      this.guard();
      const saved = describeVersion(await this.saveLocked(name, description, auto));
      kilnEvents().publish({ kind: "version", action: "saved", version_id: saved.version_id, branch: saved.branch, name: saved.name });
      return saved;
    });
  }

  private async saveLocked(name: string, description: string, auto: boolean): Promise<VersionRow> {
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    const records = this.ws.dirty.size;
    // On SQLite, a big save's packs go to the writer thread as soon as they are built.
    const stream = this.store.packStream();
    const { root, created, changed } = await snapshotWorking(this.ws, this.store, stream?.add).catch(async (error) => {
      await stream?.abort();
      throw error;
    });
    const hashed = performance.now();
    const cpuHashed = process.cpuUsage(cpuStart);
    // The new packs go to the database while the version's summary is worked out.
    // Packs a stream wrote are stored with their reference counted; preWrite's are not (refs = 0).
    const preWriting = stream
      ? stream.finish().then((hashes) => ({ hashes, counted: true }))
      : this.store.preWrite(created).then((hashes) => ({ hashes, counted: false }));
    preWriting.catch(() => undefined); // handled below; not an unhandled rejection meanwhile
    const discard = (pre: { hashes: string[]; counted: boolean }) =>
      (pre.counted ? this.store.dropPending(pre.hashes) : this.store.dropUnreferenced(pre.hashes)).catch(() => undefined);
    let changes: number, preWritten: { hashes: string[]; counted: boolean };
    let branch: SaveBranch | undefined;
    try {
      // The branch and its head's root in one query (a round trip less on PostgreSQL).
      [branch] = await this.db.$queryRaw<SaveBranch[]>(Prisma.sql`SELECT b."name", b."head", b."workRoot", v."root" AS "headRoot" FROM "Branch" b LEFT JOIN "Version" v ON v."number" = b."head" WHERE b."name" = ${this.ws.branch}`);
      if (!branch) throw notFound("BRANCH_NOT_FOUND", `There is no branch named "${this.ws.branch}".`, { field: "name", name: this.ws.branch });
      const parentRoot = branch.headRoot ?? initialSnapshot(this.store).root;
      if (parentRoot === this.ws.baseRoot) changes = changed; // counted while the tree was rebuilt
      else {
        await this.store.loadTree(parentRoot);
        changes = (await diffTreesInSlices(parentRoot, root, this.store.node, slicer())).size;
      }
      preWritten = await preWriting;
    } catch (error) {
      await discard(await preWriting.catch(() => ({ hashes: [], counted: false })));
      throw error;
    }
    const objects = this.ws.objectCount;
    const seq = this.ws.seq;
    const { name: branchName, head, workRoot } = branch;
    const row = await this.db.$transaction(async (tx) => {
      // The next version number, counted and read in one statement.
      const [counter] = await tx.$queryRaw<{ value: string }[]>(Prisma.sql`INSERT INTO "Setting" ("key", "value") VALUES (${VERSION_SEQ_KEY}, '1') ON CONFLICT ("key") DO UPDATE SET "value" = CAST(CAST("Setting"."value" AS INTEGER) + 1 AS TEXT) RETURNING "value"`);
      const number = Number(counter.value);
      // One reference for the version, one for the branch's working base, which leaves the old base.
      const pre = preWritten;
      await this.store.addAndRelease(tx, [root, root], created, pre.counted ? [] : pre.hashes, [workRoot], pre.counted ? pre.hashes : []);
      await tx.branch.update({ where: { name: branchName }, data: { head: number, workRoot: root, workSeq: seq } });
      return tx.version.create({ data: { number, name, description, branch: branchName, parent: head === null ? null : Number(head), root, objects, changes, auto, ...callerColumns() } });
    }, { timeout: 60_000 }).catch(async (error) => {
      await discard(preWritten);
      throw error;
    });
    this.ws.markSaved(root);
    const done = performance.now();
    // Big saves say where their time went (tests/bench/save-bench.ts reads this line).
    if (done - started > 500) {
      // CPU times too: on a loaded machine the wall times mostly measure waiting for a core.
      const cpu = (u: NodeJS.CpuUsage) => Math.round((u.user + u.system) / 1000);
      const cpuAll = cpu(process.cpuUsage(cpuStart));
      console.error(`kiln: saved ${versionId(row.number)} (${records} changed records, ${created.length} new objects): hashing ${Math.round(hashed - started)} ms, database ${Math.round(done - hashed)} ms (CPU: hashing ${cpu(cpuHashed)} ms, database ${cpuAll - cpu(cpuHashed)} ms)`);
    }
    return row;
  }

  /** One version's public shape; 404 VERSION_NOT_FOUND when there is none. */
  async get(id: string) {
    return describeVersion(await this.version(id));
  }

  /** Versions, newest first. */
  async list(limit: number, offset: number, branch?: string, person?: string) {
    const where = { ...(branch ? { branch } : {}), ...(person ? personWhere(person) : {}) };
    const [rows, total] = await Promise.all([
      this.db.version.findMany({ where, orderBy: { number: "desc" }, take: limit, skip: offset }),
      this.db.version.count({ where }),
    ]);
    return { versions: rows.map(describeVersion), total, limit, offset };
  }

  /**
   * Whether the working state differs from the snapshot it was loaded from (a restored version
   * included): what restore_version must auto-save so that nothing is lost.
   */
  private async hasUnsavedChanges(working?: string): Promise<boolean> {
    return this.ws.dirty.size > 0 && !(await this.sameContent(working ?? (await this.workingRoot()), this.ws.baseRoot));
  }

  /** The snapshot root of the current working state (its base's when nothing changed since). */
  private async workingRoot(): Promise<string> {
    return this.ws.dirty.size > 0 ? (await snapshotWorking(this.ws, this.store)).root : this.ws.baseRoot;
  }

  /**
   * Whether two snapshots hold the same records. Equal roots do; different roots can too when
   * one was written before packs (docs/version-control.md), so those are compared record by record.
   */
  private async sameContent(a: string, b: string): Promise<boolean> {
    if (a === b) return true;
    await this.store.loadTree(a);
    await this.store.loadTree(b);
    return diffTrees(a, b, this.store.node).size === 0;
  }

  /** Root of a branch's head version, or of the initial state when it has none. */
  private async headRoot(b: BranchRow): Promise<string> {
    const head = b.head === null ? null : await this.db.version.findUnique({ where: { number: b.head }, select: { root: true } });
    return head?.root ?? initialSnapshot(this.store).root;
  }

  /**
   * `unsaved_changes` of list_branches: whether a save would record something new, i.e. the
   * working state differs from the branch's head. After restoring an older version that is
   * true although nothing would be lost (the restored state is a saved version).
   */
  private async differsFromHead(b: BranchRow, working?: string): Promise<boolean> {
    const head = await this.headRoot(b);
    if (b.name === this.ws.branch) return !(await this.sameContent(working ?? (await this.workingRoot()), head));
    // Another branch: its working base, plus any operations logged on it since.
    return (await this.db.operation.count({ where: { branch: b.name, seq: { gt: b.workSeq } } })) > 0 || !(await this.sameContent(b.workRoot, head));
  }

  /** Sets the working state to a version's state; unsaved work is auto-saved first. */
  restore(id: string) {
    return this.ws.exclusive(async () => {
      this.guard();
      const target = await this.version(id);
      const autoSaved = (await this.hasUnsavedChanges())
        ? await this.saveLocked(`Auto-save before restoring ${id}`, "Unsaved changes, saved automatically by restore_version.", true)
        : null;
      const base = this.ws.baseRoot;
      await Promise.all([this.store.loadTree(base), this.store.loadTree(target.root)]);
      const diff = diffTrees(base, target.root, this.store.node);
      const records = await this.store.records([...diff.values()].map(([, ref]) => ref).filter((ref) => ref !== null));
      const changes: Change[] = [];
      for (const [recordId, [, ref]] of diff) {
        const after = ref ? records.get(ref)! : null;
        changes.push({ id: recordId, before: this.ws.state.get(recordId) ?? null, after });
      }
      const applied = await this.ws.applyGroup("restore", "restore_version", { version_id: id }, changes);
      // The restore is durable once its log entry is written; moving the branch's working base
      // only makes later saves and diffs cheap. If that write fails (a full disk), the branch
      // keeps its old base plus the logged restore, which loads to the same state: answer the
      // restore that happened rather than an error that would claim nothing changed.
      try {
        await this.moveWorkBase(this.ws.branch, target.root, applied.seq);
        this.ws.markSaved(target.root);
      } catch (error) {
        console.error(`kiln: restore_version ${id} done, but its working base was not moved (${(error as Error).message.split("\n").pop()})`);
      }
      kilnEvents().publish({ kind: "version", action: "restored", version_id: id, branch: this.ws.branch, name: target.name });
      return { restored: describeVersion(target), auto_saved: autoSaved ? describeVersion(autoSaved) : null, changed_records: changes.length };
    });
  }

  private async moveWorkBase(branch: string, root: string, seq: number) {
    const row = await this.branchRow(branch);
    await this.db.$transaction(async (tx) => {
      await this.store.addRefs(tx, [root], []);
      await this.store.release(tx, [row.workRoot]);
      await tx.branch.update({ where: { name: branch }, data: { workRoot: root, workSeq: seq } });
    });
  }

  /** Creates a branch starting at a version (default: the current branch's head); does not switch. */
  createBranch(name: string, fromVersion?: string) {
    return this.ws.exclusive(async () => {
      this.guard();
      if (!BRANCH_NAME.test(name))
        throw invalid("INVALID_BRANCH_NAME", "Branch names use letters, digits, '-', '_', '.', '/' (1-100 characters).", { field: "name" });
      if (await this.db.branch.findUnique({ where: { name } }))
        throw conflict("BRANCH_EXISTS", `A branch named "${name}" already exists.`, { field: "name", name });
      const current = await this.branchRow(this.ws.branch);
      const from = fromVersion ? await this.version(fromVersion, "from_version") : current.head ? await this.db.version.findUnique({ where: { number: current.head } }) : null;
      const snapshot = from ? { root: from.root, created: [] } : initialSnapshot(this.store);
      const row = await this.db.$transaction(async (tx) => {
        await this.store.addRefs(tx, [snapshot.root], snapshot.created);
        return tx.branch.create({ data: { name, head: from?.number ?? null, base: from?.number ?? null, workRoot: snapshot.root, workSeq: this.ws.seq, ...callerColumns() } });
      });
      kilnEvents().publish({ kind: "branch", action: "created", name });
      return this.describeBranch(row, 0, false, { base: from ? versionId(from.number) : null, changed: false });
    });
  }

  private describeBranch(b: BranchRow, versions: number, unsaved: boolean, working?: { base: string | null; changed: boolean }) {
    return {
      name: b.name, head: b.head === null ? null : versionId(b.head), base: b.base === null ? null : versionId(b.base),
      current: b.name === this.ws.branch, versions, unsaved_changes: unsaved,
      working_base: working?.base ?? null, changed_since_base: working?.changed ?? unsaved,
      created_at: b.createdAt.toISOString(), created_by: readActor(b),
    };
  }

  /**
   * The versions the branches' working states were loaded from (saved as, or restored from), by
   * branch name: the version whose snapshot is the branch's working base, preferring the branch's
   * head, then its newest version, then the newest anywhere (equal states share a root).
   */
  private async workingBases(rows: BranchRow[]): Promise<Map<string, string>> {
    const roots = [...new Set(rows.map((b) => b.workRoot))];
    const found = await this.db.version.findMany({ where: { root: { in: roots } }, select: { number: true, root: true, branch: true }, orderBy: { number: "desc" } });
    const bases = new Map<string, string>();
    for (const b of rows) {
      const same = found.filter((v) => v.root === b.workRoot);
      const pick = same.find((v) => b.head !== null && v.number === Number(b.head)) ?? same.find((v) => v.branch === b.name) ?? same[0];
      if (pick) bases.set(b.name, versionId(pick.number));
    }
    return bases;
  }

  /**
   * Whether a branch's working state has changes since its working base: for the current branch,
   * what restore_version would auto-save; for another, whether operations were logged on it since.
   */
  private async changedSinceBase(b: BranchRow, working?: string): Promise<boolean> {
    if (b.name === this.ws.branch) return this.hasUnsavedChanges(working);
    return (await this.db.operation.count({ where: { branch: b.name, seq: { gt: b.workSeq } } })) > 0;
  }

  /** A branch as list_branches and switch_branch describe it (the current one's working state hashed once). */
  private async branchState(b: BranchRow, versions: number, base: string | null) {
    const working = b.name === this.ws.branch ? await this.workingRoot() : undefined;
    return this.describeBranch(b, versions, await this.differsFromHead(b, working), { base, changed: await this.changedSinceBase(b, working) });
  }

  /** Every branch with its head, base, version count, whether it has unsaved work, and what its working state was loaded from. */
  async listBranches() {
    const [rows, counts] = await Promise.all([
      this.db.branch.findMany({ orderBy: { createdAt: "asc" } }),
      this.db.version.groupBy({ by: ["branch"], _count: { _all: true } }),
    ]);
    const count = new Map(counts.map((c) => [c.branch, c._count._all]));
    const bases = await this.workingBases(rows);
    const branches = [];
    for (const b of rows) branches.push(await this.branchState(b, count.get(b.name) ?? 0, bases.get(b.name) ?? null));
    return { branches, current: this.ws.branch };
  }

  /** Makes another branch current; each branch keeps its own working state. */
  switchBranch(name: string) {
    return this.ws.exclusive(async () => {
      this.guard();
      const target = await this.branchRow(name);
      if (name !== this.ws.branch) {
        const { state, dirty } = await loadBranchState({ db: this.db }, this.store, name, target.workRoot, target.workSeq);
        // Live applications follow first: if one refuses, nothing has changed yet.
        await this.ws.mirrorState(state);
        try {
          await this.db.setting.upsert({ where: { key: CURRENT_BRANCH_KEY }, create: { key: CURRENT_BRANCH_KEY, value: name }, update: { value: name } });
        } catch (e) {
          await this.ws.mirrorState(this.ws.state, state).catch(() => undefined);
          throw e;
        }
        this.ws.replaceState(name, state, target.workRoot, dirty);
        kilnEvents().publish({ kind: "branch", action: "switched", name });
      }
      const versions = await this.db.version.count({ where: { branch: name } });
      return { branch: await this.branchState(target, versions, (await this.workingBases([target])).get(name) ?? null) };
    });
  }

  /**
   * Deletes a version: children move to its parent, and so do branch heads and bases on it; each
   * branch whose head or base moved is reported in `branches_moved` with where it moved.
   */
  deleteVersion(id: string) {
    return this.ws.exclusive(async () => {
      this.guard();
      const v = await this.version(id);
      const parent = v.parent === null ? null : versionId(v.parent);
      const result = await this.db.$transaction(async (tx) => {
        const children = await tx.version.findMany({ where: { parent: v.number }, select: { number: true } });
        await tx.version.updateMany({ where: { parent: v.number }, data: { parent: v.parent } });
        const moved = await tx.branch.findMany({ where: { OR: [{ head: v.number }, { base: v.number }] }, orderBy: { createdAt: "asc" }, select: { name: true, head: true, base: true } });
        await tx.branch.updateMany({ where: { head: v.number }, data: { head: v.parent } });
        await tx.branch.updateMany({ where: { base: v.number }, data: { base: v.parent } });
        await tx.version.delete({ where: { number: v.number } });
        const reclaimed = await this.store.release(tx, [v.root]);
        return { children: children.map((c) => versionId(c.number)), moved, reclaimed };
      }, { timeout: 60_000 });
      const move = { from: id, to: parent };
      kilnEvents().publish({ kind: "version", action: "deleted", version_id: id, branch: v.branch, name: v.name });
      return {
        deleted: id, parent, reparented: result.children, reclaimed_objects: result.reclaimed,
        branches_moved: result.moved.map((b) => ({
          name: b.name, ...(b.head === v.number ? { head: move } : {}), ...(b.base === v.number ? { base: move } : {}),
        })),
      };
    });
  }

  /** The whole state of a version, or the working state for "working" (for renders of either side of a diff). */
  async stateOf(id: string, field = "version_id"): Promise<SceneState> {
    if (id === "working") return this.ws.state;
    return loadSnapshot((await this.version(id, field)).root, this.store);
  }

  /** Objects, materials and scenes added, removed and changed between two versions (or "working"). */
  async diff(from: string, to: string) {
    const side = async (id: string, field: string) => {
      if (id === "working") return { root: (await snapshotWorking(this.ws, this.store)).root, working: true, branch: this.ws.branch, at: new Date(), saved_by: null };
      const v = await this.version(id, field);
      await this.store.loadTree(v.root);
      return { root: v.root, working: false, branch: v.branch, at: v.createdAt, saved_by: readActor(v) };
    };
    const a = await side(from, "from"), b = await side(to, "to");
    const d = diffTrees(a.root, b.root, this.store.node);
    const records = await this.store.records([...d.values()].flat().filter((ref) => ref !== null));
    const read = (ref: RecordRef | null): SceneEntity | null => (ref ? records.get(ref)! : null);
    const pairs = [...d].map(([, [x, y]]) => ({ before: read(x), after: read(y) }));
    return { from, to, from_saved_by: a.saved_by, to_saved_by: b.saved_by, changed_by: await this.changedBy(a, b), ...describeDiff(pairs) };
  }

  /**
   * Who made the operations between two sides of a diff: those logged on `to`'s branch between
   * the two sides' times (versions keep their save time, not a log position), one entry per person
   * and client, most active first.
   */
  private async changedBy(a: { at: Date }, b: { at: Date; branch: string }): Promise<(ActorOut & { operations: number })[]> {
    const [lo, hi] = a.at <= b.at ? [a.at, b.at] : [b.at, a.at];
    const groups = await this.db.operation.groupBy({
      by: ["actorId", "actorName", "actorClient", "actorClientName", "actorToken"],
      where: { branch: b.branch, createdAt: { gt: lo, lte: hi }, changes: { not: "[]" } },
      _count: { _all: true },
    });
    return groups
      .map((g) => ({ ...readActor({ ...g, actorSession: null }), operations: g._count._all }))
      .sort((x, y) => y.operations - x.operations);
  }
}
