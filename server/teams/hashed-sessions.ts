/**
 * better-auth keeps each session's bearer secret (`Session.token`, the value its cookie carries)
 * in the database as it is. Kiln keeps only its SHA-256 there, as the API-key plugin does for
 * keys: a copy of the database (a backup, a leaked SQLite file) then holds no usable session. This
 * wraps the library's Prisma adapter so every read and write of the session model hashes the token
 * it looks up or stores, and hands the caller back the secret it gave (a new session's cookie is
 * set from what `create` returns). A row read without its secret (listing a person's sessions)
 * carries the hash, which opens nothing.
 *
 * SHA-256 without a salt is enough here, as for API keys: the token is 32 random characters, so
 * there is nothing to guess; the hash only has to be one-way.
 */
import { createHash } from "node:crypto";
import type { BetterAuthOptions } from "better-auth";
import type { DBAdapter, Where } from "@better-auth/core/db/adapter";

const MODEL = "session";
const FIELD = "token";

/** The stored form of a session token. */
export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

type Secrets = Map<string, string>;

function hashValue(value: unknown, secrets: Secrets): unknown {
  if (typeof value === "string") {
    const hashed = hashSessionToken(value);
    secrets.set(hashed, value);
    return hashed;
  }
  return Array.isArray(value) ? value.map((v) => hashValue(v, secrets)) : value;
}

function hashWhere(where: Where[] | undefined, secrets: Secrets): Where[] | undefined {
  return where?.map((w) => (w.field === FIELD ? { ...w, value: hashValue(w.value, secrets) as Where["value"] } : w));
}

function hashData<T extends Record<string, unknown> | undefined>(data: T, secrets: Secrets): T {
  return data && typeof data[FIELD] === "string" ? { ...data, [FIELD]: hashValue(data[FIELD], secrets) } : data;
}

function restore<T>(row: T, secrets: Secrets): T {
  if (!row || typeof row !== "object") return row;
  const token = (row as Record<string, unknown>)[FIELD];
  const secret = typeof token === "string" ? secrets.get(token) : undefined;
  return secret === undefined ? row : { ...row, [FIELD]: secret };
}

/** The same adapter, with the session model's tokens stored and looked up as hashes. */
export function withHashedSessionTokens(adapter: DBAdapter): DBAdapter {
  const wrapped: DBAdapter = {
    ...adapter,
    create: async (data) => {
      if (data.model !== MODEL) return adapter.create(data);
      const secrets: Secrets = new Map();
      return restore(await adapter.create({ ...data, data: hashData(data.data as Record<string, unknown>, secrets) as typeof data.data }), secrets);
    },
    findOne: async (data) => {
      if (data.model !== MODEL) return adapter.findOne(data);
      const secrets: Secrets = new Map();
      return restore(await adapter.findOne({ ...data, where: hashWhere(data.where, secrets)! }), secrets);
    },
    findMany: async <T>(data: Parameters<DBAdapter["findMany"]>[0]) => {
      if (data.model !== MODEL) return adapter.findMany<T>(data);
      const secrets: Secrets = new Map();
      return (await adapter.findMany<T>({ ...data, where: hashWhere(data.where, secrets) })).map((row) => restore(row, secrets));
    },
    count: (data) => (data.model === MODEL ? adapter.count({ ...data, where: hashWhere(data.where, new Map()) }) : adapter.count(data)),
    update: async (data) => {
      if (data.model !== MODEL) return adapter.update(data);
      const secrets: Secrets = new Map();
      return restore(await adapter.update({ ...data, where: hashWhere(data.where, secrets)!, update: hashData(data.update, secrets) }), secrets);
    },
    updateMany: (data) =>
      data.model === MODEL ? adapter.updateMany({ ...data, where: hashWhere(data.where, new Map())!, update: hashData(data.update, new Map()) }) : adapter.updateMany(data),
    delete: (data) => (data.model === MODEL ? adapter.delete({ ...data, where: hashWhere(data.where, new Map())! }) : adapter.delete(data)),
    deleteMany: (data) => (data.model === MODEL ? adapter.deleteMany({ ...data, where: hashWhere(data.where, new Map())! }) : adapter.deleteMany(data)),
    consumeOne: async (data) => {
      if (data.model !== MODEL) return adapter.consumeOne(data);
      const secrets: Secrets = new Map();
      return restore(await adapter.consumeOne({ ...data, where: hashWhere(data.where, secrets)! }), secrets);
    },
    incrementOne: async (data) => {
      if (data.model !== MODEL) return adapter.incrementOne(data);
      const secrets: Secrets = new Map();
      return restore(await adapter.incrementOne({ ...data, where: hashWhere(data.where, secrets)! }), secrets);
    },
    // A transaction hands its callback another adapter: wrap that one too.
    transaction: (cb) => adapter.transaction((trx) => cb(withHashedSessionTokens(trx as DBAdapter))),
  };
  return wrapped;
}

/** Wraps an adapter factory (what `prismaAdapter(...)` returns) with `withHashedSessionTokens`. */
export function hashedSessionTokens(factory: (options: BetterAuthOptions) => DBAdapter): (options: BetterAuthOptions) => DBAdapter {
  return (options) => withHashedSessionTokens(factory(options));
}
