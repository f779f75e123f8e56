/**
 * Team mode in the browser, on a service of its own (KILN_AUTH=team). The owner sets up through
 * the printed one-time link, invites Ada (editor) and Ben (viewer) by link, and each signs in in
 * their own browser context. Ben's Studio is read-only and a call he forces anyway gets 403; the
 * owner's "sign out everywhere" ends the owner's session in another context.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer, type KilnServer } from "../helpers/server";
import { setUpSecret } from "../helpers/team";
import { shot } from "./helpers";

let kiln: KilnServer;
let project: string;
test.beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-e2e-teams-"));
  kiln = await startServer({ cwd: project, env: { KILN_NEXT_DIST: process.env.KILN_NEXT_DIST ?? ".next", KILN_AUTH: "team", HOME: project } });
});
test.afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

/** Fills a one-time link's form (set-up or invitation) and lands in the Studio. */
async function useLink(page: Page, url: string, name: string, email: string, password: string) {
  await page.goto(url);
  await page.getByLabel("Name").fill(name);
  if (await page.getByLabel("Email").isEditable()) await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Password again").fill(password);
  await page.getByRole("button", { name: /sign in/ }).click();
  await expect(page).toHaveURL(`${kiln.url}/`);
  await expect(page.getByTestId("signed-in-as")).toHaveText(name);
}

async function invite(owner: Page, role: "editor" | "viewer"): Promise<string> {
  const secret = owner.getByTestId("secret");
  const before = (await secret.count()) ? await secret.textContent() : null;
  await owner.getByTestId("invite-role").selectOption(role);
  await owner.getByTestId("invite").click();
  await expect(owner.getByTestId("shown-once")).toContainText(`Invitation (${role})`);
  await expect(secret).toContainText(`${kiln.url}/invite/`);
  await expect(secret).not.toHaveText(before ?? "");
  return (await secret.textContent())!;
}

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
}

test("set-up link, invitations, roles in the Studio, sign out everywhere", async ({ browser }) => {
  // Pages need a person: a browser is sent to /sign-in.
  const owner = await newPage(browser);
  await owner.goto(`${kiln.url}/scene`);
  await expect(owner).toHaveURL(/\/sign-in\?next=%2Fscene$/);
  await shot(owner, "teams-sign-in");

  // The owner sets up through the link the service printed.
  await useLink(owner, `${kiln.url}/setup/${setUpSecret(kiln)}`, "Olive", "olive@example.com", "olive password 1");
  await expect(owner.getByTestId("role")).toHaveText("owner");

  // ... and invites Ada (editor) and Ben (viewer) by link.
  await owner.getByRole("link", { name: "Team" }).click();
  await expect(owner.getByTestId("members")).toContainText("olive@example.com");
  const adaLink = await invite(owner, "editor");
  const benLink = await invite(owner, "viewer");
  await shot(owner, "teams-members-invite");

  const ada = await newPage(browser);
  await useLink(ada, adaLink, "Ada", "ada@example.com", "ada password 1");
  await expect(ada.getByTestId("role")).toHaveText("editor");
  const ben = await newPage(browser);
  await useLink(ben, benLink, "Ben", "ben@example.com", "ben password 1");
  await expect(ben.getByTestId("role")).toHaveText("viewer");
  // A used link does not work twice.
  const again = await newPage(browser);
  await again.goto(benLink);
  await expect(again.getByRole("heading", { name: "This link cannot be used" })).toBeVisible();

  // Ada (editor) adds a cube; Ben (viewer) sees it, with the editing controls disabled.
  const made = await ada.request.post(`${kiln.url}/tools/create_gameobject`, { data: { name: "Box", type: "Cube", position: { x: 0, y: 0.5, z: 0 } } });
  expect(made.status()).toBe(200);
  await ben.goto(`${kiln.url}/scene`);
  await ben.getByRole("treeitem", { name: /Box/ }).first().click();
  const field = ben.getByLabel("position x");
  await expect(field).toBeVisible();
  await expect(field).toBeDisabled();
  await expect(ben.getByRole("button", { name: "Undo" })).toBeDisabled();
  await shot(ben, "teams-viewer-scene");
  // A call Ben forces anyway is refused, naming the role it needs.
  const forced = await ben.evaluate(async () => {
    const r = await fetch("/tools/set_transform", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ target: "Box", position: { x: 3 } }) });
    return { status: r.status, body: await r.json() };
  });
  expect(forced.status).toBe(403);
  expect(forced.body.error.message).toContain("needs the editor role; Ben is a viewer");
  // Ada's inspector is live.
  await ada.goto(`${kiln.url}/scene`);
  await ada.getByRole("treeitem", { name: /Box/ }).first().click();
  await expect(ada.getByLabel("position x")).toBeEnabled();
  await shot(ada, "teams-editor-scene");

  // Ben manages his own tokens: the secret is shown once.
  await ben.goto(`${kiln.url}/team/tokens`);
  await ben.getByTestId("token-name").fill("ben's agent");
  await ben.getByTestId("create-token").click();
  await expect(ben.getByTestId("secret")).toHaveText(/^kiln_/);
  await shot(ben, "teams-viewer-tokens");

  // The owner, signed in in a second browser too, signs out everywhere from the first.
  const elsewhere = await newPage(browser);
  await elsewhere.goto(`${kiln.url}/sign-in`);
  await elsewhere.getByLabel("Email").fill("olive@example.com");
  await elsewhere.getByLabel("Password").fill("olive password 1");
  await elsewhere.getByRole("button", { name: "Sign in" }).click();
  await expect(elsewhere.getByTestId("signed-in-as")).toHaveText("Olive");
  await owner.goto(`${kiln.url}/team/audit`);
  await expect(owner.getByTestId("audit")).toContainText("member added");
  await shot(owner, "teams-audit");
  await owner.goto(`${kiln.url}/team/tokens`);
  await owner.getByTestId("sign-out-everywhere").click();
  await expect(owner).toHaveURL(/\/sign-in$/);
  await elsewhere.goto(`${kiln.url}/versions`);
  await expect(elsewhere).toHaveURL(/\/sign-in\?next=%2Fversions$/);
  await shot(elsewhere, "teams-signed-out-elsewhere");
  // Ada and Ben are still signed in.
  await ben.goto(`${kiln.url}/`);
  await expect(ben.getByTestId("signed-in-as")).toHaveText("Ben");
});
