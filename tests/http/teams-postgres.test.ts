/**
 * Team mode on PostgreSQL, the team store (docs/teams.md): the start-up migrations create the
 * auth tables there too; set-up, tokens, sessions, roles and the audit log work and survive a
 * restart; no secret is stored as given.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, setUpTeam, type Team } from "../helpers/team";

let kiln: KilnServer;
let team: Team;
beforeAll(async () => {
  kiln = await startServer({ provider: "postgresql", env: { KILN_AUTH: "team" } });
  team = await setUpTeam(kiln);
}, 300_000);
afterAll(async () => kiln?.stop());

describe("team mode on PostgreSQL", () => {
  it("enforces roles, keeps no secret as given, and persists across a restart", async () => {
    expect((await post(`${kiln.url}/tools/create_gameobject`, { name: "Box", type: "Cube" }, bearer(team.viewer))).status).toBe(403);
    expect((await post(`${kiln.url}/tools/create_gameobject`, { name: "Box", type: "Cube" }, bearer(team.editor))).status).toBe(200);
    const db = new pg.Client({ connectionString: kiln.databaseUrl });
    await db.connect();
    try {
      const rows = await db.query(`SELECT (SELECT string_agg(token, ' ') FROM "Session") AS s, (SELECT string_agg(key, ' ') FROM "Apikey") AS k, (SELECT string_agg(password, ' ') FROM "Account") AS p, (SELECT string_agg("tokenHash", ' ') FROM "Invite") AS i`);
      const stored = JSON.stringify(rows.rows);
      // Passwords are the library's scrypt hashes ("salt:hash"); there are three members.
      expect(rows.rows[0].p.split(" ").every((h: string) => /^[0-9a-f]+:[0-9a-f]+$/.test(h))).toBe(true);
      for (const secret of team.secrets) expect([secret.slice(0, 12), stored.includes(secret)]).toEqual([secret.slice(0, 12), false]);
    } finally {
      await db.end();
    }
    await kiln.restart();
    expect((await post(`${kiln.url}/tools/whoami`, {}, { cookie: team.ownerCookie })).body.result.user).toMatchObject({ name: "Olive", role: "owner" });
    expect((await post(`${kiln.url}/tools/whoami`, {}, bearer(team.viewer))).body.result.user.role).toBe("viewer");
    const audit = (await post(`${kiln.url}/tools/get_audit_log`, {}, bearer(team.owner))).body.result;
    expect(audit.entries.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(["owner_set_up", "member_added", "token_created"]));
  }, 300_000);
});
