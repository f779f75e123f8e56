/**
 * MCP authorization over HTTP (docs/teams.md, "Signing in AI clients with OAuth"), against the
 * running service in team mode. The MCP SDK's own client discovers Kiln's authorization server
 * from /mcp's 401, registers itself, sends the person through sign-in and consent (driven here
 * with the person's session, as their browser would), exchanges the code with its PKCE verifier
 * and calls tools as that person. Invariants: a wrong verifier, an unregistered redirect URI, a
 * token for another resource or of another surface, a revoked token are refused; a viewer
 * cannot grant `write`; the database holds no token as given.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, sessionCookieOf, setUpTeam, type Team } from "../helpers/team";

let kiln: KilnServer;
let team: Team;
let ada: string;
let ben: string;
/** Every OAuth secret handed out, to look for in the database. */
const secrets: string[] = [];

const REDIRECT = "http://127.0.0.1:9/callback";

beforeAll(async () => {
  kiln = await startServer({ env: { KILN_AUTH: "team" } });
  team = await setUpTeam(kiln);
  const signIn = async (email: string, password: string) =>
    sessionCookieOf((await post(`${kiln.url}/api/auth/sign-in/email`, { email, password }, { origin: kiln.url })).response);
  ada = await signIn("ada@example.com", "Ada password 1");
  ben = await signIn("ben@example.com", "Ben password 1");
}, 120_000);
afterAll(async () => kiln?.stop());

/** An MCP client's OAuth state, kept in memory; the authorization URL is where it would open a browser. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  readonly issuedState = randomBytes(16).toString("base64url");
  constructor(private readonly name: string, private readonly scope?: string) {}
  get redirectUrl() { return REDIRECT; }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name, redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none", ...(this.scope ? { scope: this.scope } : {}),
    };
  }
  state() { return this.issuedState; }
  clientInformation() { return this.info; }
  saveClientInformation(info: OAuthClientInformationMixed) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    secrets.push(tokens.access_token, ...(tokens.refresh_token ? [tokens.refresh_token] : []));
  }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(v: string) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

/**
 * What the person's browser does with an authorization URL: follows it signed in, lands on the
 * consent page, and answers Allow (with `scope`, default what was asked). Returns the client's
 * redirect with its code and state, or the refusal.
 */
async function consent(authorizationUrl: URL | string, cookie: string, scope?: string) {
  const page = await authorize(authorizationUrl, cookie);
  expect(page.pathname).toBe("/oauth/consent");
  const html = await (await fetch(page, { headers: { cookie } })).text();
  const answer = await post(`${kiln.url}/api/auth/oauth2/consent`, { accept: true, ...(scope ? { scope } : {}), oauth_query: page.search.slice(1) }, { cookie, origin: kiln.url });
  // `{redirect_uri}`, or `{redirect: true, url}` to a fetch: where the browser goes next.
  const next = answer.body?.redirect_uri ?? answer.body?.url;
  return { html, status: answer.status, body: answer.body, redirect: typeof next === "string" ? new URL(next) : undefined };
}

/**
 * Where the authorization endpoint sends the browser: a 302, or (to a fetch, which Node's sends
 * with `Sec-Fetch-Mode: cors`) the library's `{redirect: true, url}`.
 */
async function authorize(authorizationUrl: URL | string, cookie: string): Promise<URL> {
  const r = await fetch(authorizationUrl, { headers: { cookie, accept: "text/html" }, redirect: "manual" });
  if (r.status === 302) return new URL(r.headers.get("location")!, kiln.url);
  const body = await r.json().catch(() => null);
  expect([r.status, typeof body?.url]).toEqual([200, "string"]);
  return new URL(body.url, kiln.url);
}

async function mcpClient(provider: MemoryProvider) {
  const client = new Client({ name: "kiln-oauth-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${kiln.url}/mcp`), { authProvider: provider }));
  return client;
}

/** The SDK's whole flow for a person: 401, discovery, registration, PKCE, consent, token. */
async function signInWithSdk(name: string, cookie: string, scope?: string) {
  const provider = new MemoryProvider(name, scope);
  const transport = new StreamableHTTPClientTransport(new URL(`${kiln.url}/mcp`), { authProvider: provider });
  await expect(new Client({ name: "kiln-oauth-test", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const answered = await consent(provider.authorizationUrl!, cookie, scope);
  expect(answered.status).toBe(200);
  expect(answered.redirect!.origin + answered.redirect!.pathname).toBe(REDIRECT);
  expect(answered.redirect!.searchParams.get("state")).toBe(provider.issuedState);
  await transport.finishAuth(answered.redirect!.searchParams.get("code")!);
  return { provider, answered };
}

const toolJson = (r: Awaited<ReturnType<Client["callTool"]>>) => JSON.parse((r.content as { text: string }[])[0].text);

/** A client registered by hand (RFC 7591), for the flows the SDK would never get wrong. */
async function register(name: string) {
  const r = await post(`${kiln.url}/api/auth/oauth2/register`, { client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"] });
  expect(r.status).toBe(201);
  return r.body.client_id as string;
}

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

function authorizeUrl(clientId: string, challenge: string | null, extra: Record<string, string> = {}) {
  const u = new URL(`${kiln.url}/api/auth/oauth2/authorize`);
  u.search = new URLSearchParams({
    response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: "read write", state: "s1", resource: `${kiln.url}/mcp`,
    ...(challenge ? { code_challenge: challenge, code_challenge_method: "S256" } : {}), ...extra,
  }).toString();
  return u;
}

const tokenRequest = (form: Record<string, string>) =>
  fetch(`${kiln.url}/api/auth/oauth2/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });

describe("MCP authorization: discovery", () => {
  it("/mcp answers 401 naming its protected-resource metadata, which names Kiln's authorization server", async () => {
    const r = await fetch(`${kiln.url}/mcp`, {
      method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(r.status).toBe(401);
    const challenge = r.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer realm="kiln", /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
    expect(metadataUrl).toBe(`${kiln.url}/.well-known/oauth-protected-resource/mcp`);
    for (const url of [metadataUrl, `${kiln.url}/.well-known/oauth-protected-resource`]) {
      const prm = await (await fetch(url)).json();
      expect(prm).toMatchObject({ resource: `${kiln.url}/mcp`, authorization_servers: [`${kiln.url}/api/auth`], scopes_supported: ["read", "write"], bearer_methods_supported: ["header"] });
    }
    expect((await fetch(`${kiln.url}/.well-known/oauth-protected-resource/tools`)).status).toBe(404);
  });

  it("the authorization server's metadata (RFC 8414) is at the path-inserted and the root well-known URLs", async () => {
    for (const url of [`${kiln.url}/.well-known/oauth-authorization-server/api/auth`, `${kiln.url}/.well-known/oauth-authorization-server`]) {
      const r = await fetch(url);
      expect([url, r.status]).toEqual([url, 200]);
      const as = await r.json();
      expect(as.issuer).toBe(`${kiln.url}/api/auth`);
      expect(as.authorization_endpoint).toBe(`${kiln.url}/api/auth/oauth2/authorize`);
      expect(as.token_endpoint).toBe(`${kiln.url}/api/auth/oauth2/token`);
      expect(as.registration_endpoint).toBe(`${kiln.url}/api/auth/oauth2/register`);
      expect(as.code_challenge_methods_supported).toEqual(["S256"]);
      expect(as.scopes_supported).toEqual(expect.arrayContaining(["read", "write"]));
    }
  });
});

describe("MCP authorization: the SDK's client signs a person in", () => {
  it("completes discovery, registration, PKCE, consent and token, and calls tools as Ada via the client", async () => {
    const { provider, answered } = await signInWithSdk("Claude on Ada's laptop", ada);
    expect(answered.html).toContain("Claude on Ada&#x27;s laptop");
    expect(provider.saved!.access_token.startsWith("kilnat_")).toBe(true);
    expect(provider.saved!.scope?.split(" ").sort()).toEqual(["read", "write"]);
    const client = await mcpClient(provider);
    const who = toolJson(await client.callTool({ name: "whoami", arguments: {} }));
    expect(who).toMatchObject({ mode: "team", user: { name: "Ada", role: "editor" }, client: "mcp", token: { name: "Claude on Ada's laptop", scope: "write" } });
    const made = await client.callTool({ name: "create_gameobject", arguments: { name: "OAuthBox", type: "Cube" } });
    expect(made.isError).toBeFalsy();
    await client.close();
    // The token is for /mcp only: /tools refuses it.
    const other = await post(`${kiln.url}/tools/whoami`, {}, bearer(provider.saved!.access_token));
    expect(other.status).toBe(401);
    expect(other.body.error.message).toContain("/mcp only");
  });

  it("a viewer cannot grant write: asked for read and write, Ben's consent is refused; read alone works and cannot write", async () => {
    const provider = new MemoryProvider("Ben's agent");
    const transport = new StreamableHTTPClientTransport(new URL(`${kiln.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: "t", version: "1" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const refused = await consent(provider.authorizationUrl!, ben);
    expect(refused.html).toContain("reading only");
    expect(refused.status).toBe(403);
    const answered = await consent(provider.authorizationUrl!, ben, "read");
    expect(answered.status).toBe(200);
    await transport.finishAuth(answered.redirect!.searchParams.get("code")!);
    expect(provider.saved!.scope).toBe("read");
    const client = await mcpClient(provider);
    expect(toolJson(await client.callTool({ name: "whoami", arguments: {} }))).toMatchObject({ user: { name: "Ben" }, token: { scope: "read" } });
    const write = await client.callTool({ name: "create_gameobject", arguments: { name: "Nope", type: "Cube" } });
    expect(write.isError).toBe(true);
    expect(toolJson(write).error.code).toBe("FORBIDDEN");
    await client.close();
  });
});

describe("MCP authorization: what is refused", () => {
  it("Deny sends the client access_denied with its state, and no code", async () => {
    const clientId = await register("denied");
    const page = await authorize(authorizeUrl(clientId, pkce().challenge), ben);
    expect(page.pathname).toBe("/oauth/consent");
    const answer = await post(`${kiln.url}/api/auth/oauth2/consent`, { accept: false, oauth_query: page.search.slice(1) }, { cookie: ben, origin: kiln.url });
    const back = new URL(answer.body.redirect_uri ?? answer.body.url);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect([back.searchParams.get("error"), back.searchParams.get("state"), back.searchParams.get("code")]).toEqual(["access_denied", "s1", null]);
  });

  it("PKCE is required, and a wrong verifier gets no token", async () => {
    const clientId = await register("pkce check");
    const refusal = await authorize(authorizeUrl(clientId, null), ada);
    expect(refusal.searchParams.get("error")).toBe("invalid_request");
    expect(refusal.searchParams.get("code")).toBeNull();

    const { challenge } = pkce();
    const answered = await consent(authorizeUrl(clientId, challenge), ada);
    expect(answered.redirect!.searchParams.get("state")).toBe("s1");
    const code = answered.redirect!.searchParams.get("code")!;
    const wrong = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: pkce().verifier, resource: `${kiln.url}/mcp` });
    const refused = await wrong.json();
    expect([wrong.status, refused.error, refused.access_token]).toEqual([401, "invalid_request", undefined]);
    // The same exchange with the right verifier succeeds: it was the verifier that was refused.
    const right = pkce();
    // Ada has consented to this client already: the authorization goes straight back with a code.
    const back = await authorize(authorizeUrl(clientId, right.challenge), ada);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    const again = back.searchParams.get("code")!;
    const ok = await tokenRequest({ grant_type: "authorization_code", code: again, redirect_uri: REDIRECT, client_id: clientId, code_verifier: right.verifier, resource: `${kiln.url}/mcp` });
    const issued = await ok.json();
    expect([ok.status, typeof issued.access_token]).toEqual([200, "string"]);
    secrets.push(issued.access_token);
    // A code is used once.
    const replay = await tokenRequest({ grant_type: "authorization_code", code: again, redirect_uri: REDIRECT, client_id: clientId, code_verifier: right.verifier, resource: `${kiln.url}/mcp` });
    expect(replay.status).toBeGreaterThanOrEqual(400);
  });

  it("registration refuses an http redirect URI off this machine; authorization refuses an unregistered one without sending the person there", async () => {
    const plain = await post(`${kiln.url}/api/auth/oauth2/register`, { client_name: "plain http", redirect_uris: ["http://evil.example/cb"], token_endpoint_auth_method: "none" });
    expect([plain.status, plain.body?.error]).toEqual([400, "invalid_redirect_uri"]);
    const clientId = await register("redirect check");
    const r = await fetch(authorizeUrl(clientId, pkce().challenge, { redirect_uri: "http://evil.example/steal" }), { headers: { cookie: ada }, redirect: "manual" });
    const text = await r.text();
    expect(r.headers.get("location") ?? "").not.toContain("evil.example");
    expect(text).not.toContain("code=");
    expect(r.status === 302 ? new URL(r.headers.get("location")!, kiln.url).searchParams.get("error") : r.status >= 400 ? "refused" : text).toBeTruthy();
    expect(r.status === 200 && JSON.parse(text).url?.includes("evil.example")).toBe(false);
  });

  it("a token for another resource is refused, and so is one bound to no resource", async () => {
    const clientId = await register("resource check");
    // Another resource: the authorization server refuses to issue it.
    const elsewhere = pkce();
    const foreign = await fetch(authorizeUrl(clientId, elsewhere.challenge, { resource: "http://elsewhere.example/mcp" }), { headers: { cookie: ada }, redirect: "manual" });
    const foreignAnswer = `${foreign.headers.get("location") ?? ""} ${await foreign.text()}`;
    expect(foreignAnswer).not.toContain("/oauth/consent");
    expect(foreignAnswer).not.toContain("code=");
    // No resource asked for: a token may be issued, but /mcp does not take it.
    const { verifier, challenge } = pkce();
    const u = authorizeUrl(clientId, challenge);
    u.searchParams.delete("resource");
    const answered = await consent(u, ada);
    const code = answered.redirect!.searchParams.get("code")!;
    const token = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
    if (token.status === 200) {
      const { access_token } = await token.json();
      secrets.push(access_token);
      const r = await fetch(`${kiln.url}/mcp`, {
        method: "POST", headers: { ...bearer(access_token), "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(r.status).toBe(401);
    } else {
      expect(token.status).toBe(400);
    }
  });

  it("a revoked access token is refused on its next call", async () => {
    const { provider } = await signInWithSdk("revoked agent", ada);
    const client = await mcpClient(provider);
    expect(toolJson(await client.callTool({ name: "whoami", arguments: {} })).user.name).toBe("Ada");
    await client.close();
    const revoke = await fetch(`${kiln.url}/api/auth/oauth2/revoke`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: provider.saved!.access_token, token_type_hint: "access_token", client_id: provider.info!.client_id }),
    });
    expect(revoke.status).toBe(200);
    const r = await fetch(`${kiln.url}/mcp`, {
      method: "POST", headers: { ...bearer(provider.saved!.access_token), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(r.status).toBe(401);
  });

  it("a personal access token still works as a bearer on /mcp", async () => {
    const client = new Client({ name: "pat", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${kiln.url}/mcp`), { requestInit: { headers: bearer(team.editor) } }));
    expect(toolJson(await client.callTool({ name: "whoami", arguments: {} }))).toMatchObject({ user: { name: "Ada" }, token: { name: "Ada's agent" } });
    await client.close();
  });

  it("the database holds no OAuth token as given", async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    const files = ["kiln.db", "kiln.db-wal"].map((f) => path.join(kiln.home, f)).filter(existsSync);
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(bytes.includes("ada@example.com")).toBe(true);
    for (const secret of secrets) {
      const bare = secret.replace(/^kiln(at|rt)_/, "");
      expect([bare.slice(0, 8), bytes.includes(bare)]).toEqual([bare.slice(0, 8), false]);
    }
  });
});
