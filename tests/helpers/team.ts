/**
 * A team-mode Kiln for tests: the first owner set up through the printed one-time link (as a
 * person would), then an editor and a viewer with their own tokens. Every secret handed out is
 * kept in `secrets`, so a test can look for them where they must not be.
 */
import type { KilnServer } from "./server";

export interface Team {
  ownerCookie: string;
  /** Personal access tokens: the owner's (admin scope), the editor's (write), the viewer's (read). */
  owner: string;
  editor: string;
  viewer: string;
  ids: { owner: string; editor: string; viewer: string };
  /** Every secret given out: tokens, passwords, the set-up link's secret, the session token. */
  secrets: string[];
}

/** The one-time set-up link's secret, from the service's output. */
export function setUpSecret(server: KilnServer): string {
  const m = /\/setup\/([A-Za-z0-9_-]{43})/.exec(server.log());
  if (!m) throw new Error(`no set-up link in the service's output:\n${server.log()}`);
  return m[1];
}

/** The session cookie (name=value) a response sets. */
export function sessionCookieOf(r: Response): string {
  const cookie = r.headers.getSetCookie().find((c) => c.includes("session_token="));
  if (!cookie) throw new Error(`no session cookie in ${r.status} ${[...r.headers].join("; ")}`);
  return cookie.split(";")[0];
}

/** POST JSON with these headers; the parsed envelope and the response. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json().catch(() => null)) as any, response: r };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Sets up the owner through the link, then an editor and a viewer, each with a token. */
export async function setUpTeam(server: KilnServer): Promise<Team> {
  const secret = setUpSecret(server);
  const ownerPassword = "owner password 1";
  const setup = await post(`${server.url}/api/links`, { kind: "setup", secret, name: "Olive", email: "olive@example.com", password: ownerPassword });
  if (setup.status !== 200) throw new Error(`set-up failed: ${setup.status} ${JSON.stringify(setup.body)}`);
  const ownerCookie = sessionCookieOf(setup.response);
  const ownerToken = await post(`${server.url}/tools/create_token`, { name: "owner admin", scope: "admin" }, { cookie: ownerCookie });
  const owner = ownerToken.body.result.token as string;
  const secrets = [ownerPassword, secret, owner, decodeURIComponent(ownerCookie.split("=")[1]).split(".")[0]];
  const ids = { owner: setup.body.result.user.id as string, editor: "", viewer: "" };
  const tokens: Record<string, string> = {};
  for (const [role, name, email, scope] of [["editor", "Ada", "ada@example.com", "write"], ["viewer", "Ben", "ben@example.com", "read"]] as const) {
    const password = `${name} password 1`;
    const added = await post(`${server.url}/tools/add_user`, { email, name, role, password }, bearer(owner));
    if (added.status !== 200) throw new Error(`add_user failed: ${JSON.stringify(added.body)}`);
    ids[role] = added.body.result.user.id;
    const token = await post(`${server.url}/tools/create_token`, { name: `${name}'s agent`, scope, user: email }, bearer(owner));
    tokens[role] = token.body.result.token;
    secrets.push(password, tokens[role]);
  }
  return { ownerCookie, owner, editor: tokens.editor, viewer: tokens.viewer, ids, secrets };
}
