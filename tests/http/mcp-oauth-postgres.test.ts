/**
 * MCP authorization on PostgreSQL, the team store: there the library keeps its lists (redirect
 * URIs, scopes, resources) as native arrays, where SQLite has JSON text. The whole flow
 * (registration, PKCE, consent, token, a call on /mcp, revocation) works, the token survives a
 * restart, and no token is stored as given.
 */
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { post, sessionCookieOf, setUpTeam } from "../helpers/team";

let kiln: KilnServer;
let ada: string;
beforeAll(async () => {
  kiln = await startServer({ provider: "postgresql", env: { KILN_AUTH: "team" } });
  await setUpTeam(kiln);
  ada = sessionCookieOf((await post(`${kiln.url}/api/auth/sign-in/email`, { email: "ada@example.com", password: "Ada password 1" }, { origin: kiln.url })).response);
}, 120_000);
afterAll(async () => kiln?.stop());

const REDIRECT = "http://localhost:33418/callback";

/** Follows the library's answer: a 302, or `{redirect: true, url}` to a fetch. */
async function next(r: Response): Promise<URL> {
  if (r.status === 302) return new URL(r.headers.get("location")!, kiln.url);
  const body = await r.json();
  expect([r.status, typeof (body.url ?? body.redirect_uri)]).toEqual([200, "string"]);
  return new URL(body.url ?? body.redirect_uri, kiln.url);
}

const whoami = (token: string) =>
  fetch(`${kiln.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }),
  });

describe("MCP authorization on PostgreSQL", () => {
  it("registers, authorizes with PKCE and consent, calls /mcp as Ada, survives a restart, and revokes", async () => {
    const registered = await post(`${kiln.url}/api/auth/oauth2/register`, { client_name: "Claude Code", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
    expect(registered.status).toBe(201);
    const clientId = registered.body.client_id as string;
    const verifier = randomBytes(32).toString("base64url");
    const authorize = new URL(`${kiln.url}/api/auth/oauth2/authorize`);
    authorize.search = new URLSearchParams({
      response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: "read write", state: "pg",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256", resource: `${kiln.url}/mcp`,
    }).toString();
    const page = await next(await fetch(authorize, { headers: { cookie: ada }, redirect: "manual" }));
    expect(page.pathname).toBe("/oauth/consent");
    const allowed = await post(`${kiln.url}/api/auth/oauth2/consent`, { accept: true, oauth_query: page.search.slice(1) }, { cookie: ada, origin: kiln.url });
    expect(allowed.status).toBe(200);
    const back = new URL(allowed.body.url ?? allowed.body.redirect_uri);
    expect(back.searchParams.get("state")).toBe("pg");
    const token = await fetch(`${kiln.url}/api/auth/oauth2/token`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code: back.searchParams.get("code")!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${kiln.url}/mcp` }),
    });
    expect(token.status).toBe(200);
    const { access_token } = await token.json();
    const call = async () => JSON.parse((await (await whoami(access_token)).json()).result.content[0].text);
    expect(await call()).toMatchObject({ user: { name: "Ada" }, client: "mcp", token: { name: "Claude Code", scope: "write" } });

    const db = new pg.Client({ connectionString: kiln.databaseUrl });
    await db.connect();
    try {
      const stored = JSON.stringify((await db.query(`SELECT token, resources, scopes FROM "OauthAccessToken"`)).rows);
      expect(stored).toContain(`${kiln.url}/mcp`);
      expect(stored.includes(access_token.replace(/^kilnat_/, ""))).toBe(false);
    } finally {
      await db.end();
    }

    await kiln.restart();
    expect(await call()).toMatchObject({ user: { name: "Ada" } });
    const revoked = await fetch(`${kiln.url}/api/auth/oauth2/revoke`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: access_token, token_type_hint: "access_token", client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    expect((await whoami(access_token)).status).toBe(401);
  }, 180_000);
});
