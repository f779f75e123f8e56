/**
 * One owner per project: the process that opens a project's data (the service, or a CLI command
 * running in-process) holds an exclusive lock on it until it exits, so no second process can
 * change the database behind the first one's in-memory working state.
 *
 * - The project folder (KILN_HOME) is locked with a file lock (file-lock.ts): `<home>/owner.lock`,
 *   and a SQLite database, wherever it is, also with `<database>.owner.lock`.
 * - A PostgreSQL database is locked with an advisory lock (pg-lock.ts), so two project folders
 *   pointed at one database cannot both own it either.
 * - The owner describes itself in `<home>/service.json` `{pid, url, command, started_at}` (url is
 *   null until the service listens, and for CLI commands that serve no HTTP). Only the owner ever
 *   writes or removes that file; whoever fails to take the lock reads it to name the owner.
 * Ownership is process-wide (kept on globalThis): Next.js may load this module once per bundle,
 * and bin/kiln.js claims the project before Next.js loads at all; later claims reuse the first.
 */
import { readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { KilnConfig } from "../config";
import { tryLockFile, type HeldFileLock } from "./file-lock";
import { holderLabel, tryLockDatabase, type HeldPgLock } from "./pg-lock";

/** File name of the owner's description inside the project folder. */
export const SERVICE_FILE = "service.json";
const LOCK_FILE = "owner.lock";

/** What the owner of a project says about itself. */
export interface OwnerInfo {
  pid: number | null;
  /** Where it serves the tools, or null (not listening yet, or a CLI command). */
  url: string | null;
  command?: string;
  started_at?: string;
}

/** The project is owned by another process. */
export class ProjectOwnedError extends Error {
  constructor(readonly owner: OwnerInfo | undefined, readonly what: string) {
    super(`${what} is already open in another Kiln process (${describeOwner(owner)}); stop that one first, or use another KILN_HOME / DATABASE_URL.`);
    this.name = "ProjectOwnedError";
  }
}

/** "pid 123, serving http://127.0.0.1:8080" */
export function describeOwner(owner: OwnerInfo | undefined): string {
  if (!owner || owner.pid === null) return "its details are not written yet";
  const doing = owner.url ? `serving ${owner.url}` : owner.command ? `running \`${owner.command}\`, which serves no URL` : "not serving HTTP yet";
  return `pid ${owner.pid}, ${doing}`;
}

/** The lock this process holds on a project. */
export interface Ownership {
  home: string;
  /** Records where this process serves (the service, once it listens). */
  announce(url: string): Promise<void>;
  release(): Promise<void>;
}

const KEY = Symbol.for("kiln.ownership");
/**
 * Set by bin/kiln.js while it claims the project (concurrently with Next.js loading, whose
 * instrumentation opens the project at once): other claims in the process wait for it, so they
 * reuse its ownership instead of racing it for the lock.
 */
const LAUNCHER = Symbol.for("kiln.ownership.launcher");
type Holder = { [KEY]?: Map<string, Ownership> };
const held = () => ((globalThis as Holder)[KEY] ??= new Map());

/** Reads the owner's description; undefined when missing or malformed. */
export function readOwnerInfo(home: string): OwnerInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path.join(home, SERVICE_FILE), "utf8")) as Partial<OwnerInfo>;
    const pid = Number.isInteger(info.pid) && (info.pid as number) > 0 ? (info.pid as number) : null;
    const url = typeof info.url === "string" && /^https?:\/\/[^/\s]+\/?$/.test(info.url) ? info.url : null;
    return { pid, url, ...(typeof info.command === "string" ? { command: info.command } : {}), ...(typeof info.started_at === "string" ? { started_at: info.started_at } : {}) };
  } catch {
    return undefined;
  }
}

function writeOwnerInfo(home: string, info: OwnerInfo) {
  const file = path.join(home, SERVICE_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(info) + "\n");
  renameSync(temp, file); // readers never see half a file
}

function removeOwnerInfo(home: string) {
  try {
    if (readOwnerInfo(home)?.pid === process.pid) rmSync(path.join(home, SERVICE_FILE));
  } catch {
    // already gone
  }
}

/** A SQLite database's file, symlinks resolved when it exists (two names for one file are one claim). */
function sqliteFile(config: KilnConfig): string {
  const db = path.resolve(config.projectDir, config.databaseUrl.slice("file:".length).replace(/\?.*$/, ""));
  try {
    return realpathSync(db);
  } catch {
    return db;
  }
}

/**
 * The lock files of a configuration: the project folder's, and for SQLite always the database's
 * own, `<database>.owner.lock` (issue 26): the claim belongs to the database, not only to the
 * folder, so a second Kiln with its own KILN_HOME but DATABASE_URL at another project's kiln.db
 * is refused at start instead of serving and failing every write.
 */
function lockFiles(config: KilnConfig): { file: string; owner: () => OwnerInfo | undefined; what: string }[] {
  const files = [{ file: path.join(config.home, LOCK_FILE), owner: () => readOwnerInfo(config.home), what: `The project ${config.home}` }];
  if (config.provider === "sqlite") {
    const db = sqliteFile(config);
    // Its owner described itself in its own folder: the database's, by default, or ours.
    files.push({ file: `${db}.owner.lock`, owner: () => readOwnerInfo(path.dirname(db)) ?? readOwnerInfo(config.home), what: `The SQLite database ${db}` });
  }
  return files;
}

const safeUrl = (url: string) => url.replace(/\/\/[^@/]*@/, "//");

/**
 * Takes ownership of the project of `config` for this process, or reports who owns it.
 * Claiming again in the same process returns the ownership already held.
 */
export async function tryClaimProject(config: KilnConfig, command: string, options: { launcher?: boolean } = {}): Promise<{ ownership: Ownership } | { owner: OwnerInfo | undefined; error: ProjectOwnedError }> {
  if (!options.launcher) await (globalThis as { [LAUNCHER]?: Promise<unknown> })[LAUNCHER];
  const existing = held().get(config.home);
  if (existing) return { ownership: existing };
  const files: HeldFileLock[] = [];
  const releaseFiles = () => files.splice(0).reverse().forEach((f) => f.release());
  for (const { file, owner: ownerOf, what } of lockFiles(config)) {
    const lock = tryLockFile(file);
    if (!lock) {
      releaseFiles();
      const owner = ownerOf();
      return { owner, error: new ProjectOwnedError(owner, what) };
    }
    files.push(lock);
  }
  let pgLock: HeldPgLock | undefined;
  if (config.provider === "postgresql") {
    try {
      const got = await tryLockDatabase(config.databaseUrl, holderLabel(process.pid, null), (error) => {
        // Another process may own the database now: serving on would mean two owners.
        console.error(`kiln: lost the lock on the PostgreSQL database (${error.message}); stopping so that no second owner can diverge from this one.`);
        process.exit(2);
      });
      if ("holder" in got) {
        releaseFiles();
        const owner = got.holder ? { pid: got.holder.pid, url: got.holder.url } : undefined;
        return { owner, error: new ProjectOwnedError(owner, `The PostgreSQL database ${safeUrl(config.databaseUrl)}`) };
      }
      pgLock = got.lock;
    } catch (error) {
      releaseFiles();
      throw error;
    }
  }
  const home = config.home;
  const info: OwnerInfo = { pid: process.pid, url: null, command, started_at: new Date().toISOString() };
  writeOwnerInfo(home, info);
  const onExit = () => removeOwnerInfo(home);
  process.on("exit", onExit);
  const ownership: Ownership = {
    home,
    async announce(url) {
      info.url = url;
      writeOwnerInfo(home, info);
      await pgLock?.describe(holderLabel(process.pid, url));
    },
    async release() {
      if (held().get(home) !== ownership) return;
      held().delete(home);
      process.off("exit", onExit);
      removeOwnerInfo(home);
      await pgLock?.release();
      releaseFiles();
    },
  };
  held().set(home, ownership);
  return { ownership };
}

/** Like tryClaimProject, but throws ProjectOwnedError when another process owns the project. */
export async function claimProject(config: KilnConfig, command: string): Promise<Ownership> {
  const claim = await tryClaimProject(config, command);
  if ("error" in claim) throw claim.error;
  return claim.ownership;
}

/** The command line of this process, for the owner description. */
export const thisCommand = () => ["kiln", ...process.argv.slice(2)].join(" ");
