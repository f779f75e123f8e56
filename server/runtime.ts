/**
 * The running service's parts, created once per process and shared by every surface (HTTP
 * routes, tRPC, MCP, CLI). Kept on globalThis because Next.js may load this module once per
 * route bundle; a second copy must not open a second database or diverge in memory.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { loadConfig, type KilnConfig } from "./config";
import { openDb, type Db } from "./db/client";
import { migrate } from "./db/migrate";
import { claimProject, thisCommand, type Ownership } from "./ownership/owner";
import { markInterrupted } from "./ownership/interrupted";
import { openWorkspace } from "./versioning/load";
import { ObjectStore } from "./versioning/object-store";
import { VersionControl } from "./versioning/version-control";
import type { Workspace } from "./workspace/workspace";
import { Transactions } from "./transactions/transactions";
import { loadBridgeCredentials } from "./bridges/credentials";
import { LiveApps } from "./bridges/live-apps";
import { Teams } from "./teams/teams";
import { currentCaller } from "./teams/actor";

export interface Kiln {
  config: KilnConfig;
  db: Db;
  workspace: Workspace;
  versions: VersionControl;
  transactions: Transactions;
  /** Live applications connected through the bridge (server/bridges). */
  live: LiveApps;
  /** Where screenshots are written (under the project's .kiln folder). */
  screenshotsDir: string;
  startedAt: Date;
  /** This process's lock on the project (server/ownership). */
  ownership: Ownership;
  /** People, sessions, tokens and the audit log (server/teams; team mode: KILN_AUTH=team). */
  teams: Teams;
}

const KEY = Symbol.for("kiln.runtime");
type Holder = { [KEY]?: Promise<Kiln> };

/**
 * Where Kiln's own files (prisma/ migrations) are: `bin/kiln.js` sets KILN_ROOT, since the
 * project folder (the working directory) may be another one.
 */
export const packageRoot = () => process.env.KILN_ROOT ?? process.cwd();

/**
 * Starts Kiln's parts: ownership of the project (throws ProjectOwnedError when another process
 * has it), migrations, database, work a crash cut off, working state.
 */
export async function startKiln(config: KilnConfig = loadConfig(), root = packageRoot()): Promise<Kiln> {
  mkdirSync(config.home, { recursive: true });
  const ownership = await claimProject(config, thisCommand());
  await migrate(config, root);
  const db = await openDb(config);
  // Only the owner gets here, so whatever is still "running" was cut off by a crash.
  await markInterrupted(db);
  const store = new ObjectStore(db);
  const workspace = await openWorkspace(db, store);
  const versions = new VersionControl(db, workspace, store);
  const transactions = await Transactions.load(db, workspace);
  versions.transactionOpen = () => transactions.isOpen;
  const screenshotsDir = path.join(config.home, "screenshots");
  mkdirSync(screenshotsDir, { recursive: true });
  const live = new LiveApps(workspace, loadBridgeCredentials(config.home));
  await live.restore();
  const teams = new Teams(db, config);
  await teams.start();
  // Soft locks (server/teams/locks.ts): checked on the records each change would touch, before anything changes.
  workspace.hooks.guard = (changes, kind) => {
    if (kind !== "rollback") teams.locks.guard(changes, currentCaller().actor);
  };
  return { config, db, workspace, versions, transactions, live, screenshotsDir, startedAt: new Date(), ownership, teams };
}

/** The process-wide Kiln, started on first use. */
export function getKiln(): Promise<Kiln> {
  const holder = globalThis as Holder;
  holder[KEY] ??= startKiln().catch((e) => {
    delete holder[KEY];
    throw e;
  });
  return holder[KEY];
}

/** Stops the process-wide Kiln (tests, CLI): waits for pending writes and closes the database. */
export async function stopKiln(): Promise<void> {
  const holder = globalThis as Holder;
  const kiln = await holder[KEY];
  delete holder[KEY];
  if (!kiln) return;
  kiln.live.closeAll();
  kiln.teams.stop();
  await kiln.workspace.flush();
  await kiln.db.$disconnect();
  await kiln.ownership.release();
}
