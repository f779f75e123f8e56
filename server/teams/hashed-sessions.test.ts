// Invariant: the session model's token is stored and looked up as its SHA-256; callers get back
// the secret they gave, and other models pass through untouched.
import { describe, expect, it } from "vitest";
import type { DBAdapter } from "@better-auth/core/db/adapter";
import { hashSessionToken, withHashedSessionTokens } from "./hashed-sessions";

function fakeAdapter() {
  const rows: Record<string, Record<string, unknown>[]> = { session: [], user: [] };
  const match = (row: Record<string, unknown>, where: { field: string; value: unknown }[] = []) => where.every((w) => row[w.field] === w.value);
  const adapter = {
    id: "fake",
    create: async ({ model, data }: { model: string; data: Record<string, unknown> }) => (rows[model].push({ ...data }), { ...data }),
    findOne: async ({ model, where }: { model: string; where: { field: string; value: unknown }[] }) => rows[model].find((r) => match(r, where)) ?? null,
    findMany: async ({ model, where }: { model: string; where?: { field: string; value: unknown }[] }) => rows[model].filter((r) => match(r, where)),
    update: async ({ model, where, update }: { model: string; where: { field: string; value: unknown }[]; update: Record<string, unknown> }) => {
      const row = rows[model].find((r) => match(r, where));
      return row ? Object.assign(row, update) : null;
    },
    delete: async ({ model, where }: { model: string; where: { field: string; value: unknown }[] }) => { rows[model] = rows[model].filter((r) => !match(r, where)); },
  } as unknown as DBAdapter;
  return { rows, adapter: withHashedSessionTokens(adapter) };
}

describe("withHashedSessionTokens", () => {
  it("stores the hash, answers with the secret, finds by the secret", async () => {
    const { rows, adapter } = fakeAdapter();
    const created = await adapter.create<Record<string, unknown>>({ model: "session", data: { token: "secret-token", userId: "u1" } });
    expect(created.token).toBe("secret-token");
    expect(rows.session[0].token).toBe(hashSessionToken("secret-token"));
    expect(JSON.stringify(rows)).not.toContain("secret-token");
    const found = await adapter.findOne<Record<string, unknown>>({ model: "session", where: [{ field: "token", value: "secret-token" }] });
    expect(found?.userId).toBe("u1");
    expect(found?.token).toBe("secret-token");
    expect(await adapter.findOne({ model: "session", where: [{ field: "token", value: rows.session[0].token as string }] })).toBeNull();
    await adapter.update({ model: "session", where: [{ field: "token", value: "secret-token" }], update: { userId: "u2" } });
    expect(rows.session[0].userId).toBe("u2");
    await adapter.delete({ model: "session", where: [{ field: "token", value: "secret-token" }] });
    expect(rows.session).toHaveLength(0);
  });

  it("leaves other models alone", async () => {
    const { rows, adapter } = fakeAdapter();
    await adapter.create({ model: "user", data: { token: "not a session", email: "a@b" } });
    expect(rows.user[0].token).toBe("not a session");
  });
});
