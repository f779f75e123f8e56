/**
 * An AI client's OAuth sign-in in the browser (docs/teams.md, "Signing in AI clients with OAuth"),
 * on a team-mode service of its own. The client (played by this test: registration, PKCE, code
 * exchange) opens Kiln's authorization URL; Ada, not signed in, signs in at /sign-in, lands on the
 * consent page, clicks Allow, and the browser goes to the client's redirect URI with a code and
 * the client's state. The token it exchanges calls /mcp as Ada.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startServer, type KilnServer } from "../helpers/server";
import { post, setUpTeam } from "../helpers/team";
import { shot } from "./helpers";

let kiln: KilnServer;
let project: string;
test.beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-e2e-oauth-"));
  kiln = await startServer({ cwd: project, env: { KILN_NEXT_DIST: process.env.KILN_NEXT_DIST ?? ".next", KILN_AUTH: "team", HOME: project } });
  await setUpTeam(kiln);
});
test.afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

const REDIRECT = "http://127.0.0.1:9/callback";

test("sign in and Allow on the consent page give the client a code that calls /mcp as Ada", async ({ browser }) => {
  const registered = await post(`${kiln.url}/api/auth/oauth2/register`, { client_name: "Claude Desktop", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
  expect(registered.status).toBe(201);
  const clientId = registered.body.client_id as string;
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${kiln.url}/api/auth/oauth2/authorize`);
  authorize.search = new URLSearchParams({
    response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: "read write", state: "xyz",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256", resource: `${kiln.url}/mcp`,
  }).toString();

  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  // The client's loopback listener: the browser lands here with the code.
  let landed: URL | undefined;
  await page.route("http://127.0.0.1:9/**", (route) => {
    landed = new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: "text/html", body: "<p>You can close this window.</p>" });
  });

  await page.goto(authorize.toString());
  await expect(page).toHaveURL(/\/sign-in\?/);
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password").fill("Ada password 1");
  await page.getByRole("button", { name: "Sign in" }).click();

  await expect(page).toHaveURL(/\/oauth\/consent\?/);
  await expect(page.getByRole("heading", { name: "Allow Claude Desktop to use Kiln?" })).toBeVisible();
  await expect(page.getByTestId("oauth-consent")).toContainText("Signed in as Ada (editor)");
  await shot(page, "oauth-consent");
  await page.getByRole("button", { name: "Allow" }).click();

  await expect.poll(() => landed?.pathname).toBe("/callback");
  expect(landed!.searchParams.get("state")).toBe("xyz");
  const code = landed!.searchParams.get("code")!;
  const token = await fetch(`${kiln.url}/api/auth/oauth2/token`, {
    method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${kiln.url}/mcp` }),
  });
  expect(token.status).toBe(200);
  const { access_token } = await token.json();
  const call = await fetch(`${kiln.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }),
  });
  const who = JSON.parse((await call.json()).result.content[0].text);
  expect(who).toMatchObject({ user: { name: "Ada" }, client: "mcp", token: { name: "Claude Desktop", scope: "write" } });
});
