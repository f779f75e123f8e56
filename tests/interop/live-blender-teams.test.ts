/**
 * Live Blender in team mode (issue 27, docs/teams.md "Every change says who" and "Locks"): real
 * Blender started with `kiln blender --background` and Ada's personal access token in KILN_TOKEN.
 * Her hand edits in Blender are hers ("Ada in Blender"); Ben's lock on an object makes her hand
 * edit on it refused: Kiln's scene and history unchanged, Blender set back, and the refusal's
 * message printed by the add-on in Blender.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, setUpTeam, type Team } from "../helpers/team";
import { close, startLiveBlender, until, type LiveBlender } from "./live";

let project: string;
let kiln: KilnServer;
let team: Team;
/** Ben's write token (setUpTeam makes Ben a viewer; here he is an editor). */
let ben: string;
let blender: LiveBlender | undefined;

const call = (tool: string, body: unknown, token: string) => post(`${kiln.url}/tools/${tool}`, body, bearer(token));
const ok = async (tool: string, body: unknown, token: string) => {
  const r = await call(tool, body, token);
  if (r.status !== 200) throw new Error(`${tool}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
};
/** Kiln's record of the object Nudged in Blender's scene. */
const nudgedInKiln = async () => (await ok("get_scene", { app: "blender" }, ben)).objects.find((o: { name: string }) => o.name === "Nudged");
/** Blender's own world matrix of Nudged, from bpy. */
const nudgedInBlender = async () => (await blender!.command("dump")).objects.find((o: { kiln_name: string }) => o.kiln_name === "Nudged");
/** Blender's connection as get_pipeline_status reports it (asked with Ben's token: team mode). */
const blenderConnectionAs = async (token: string) =>
  (await ok("get_pipeline_status", {}, token)).apps.find((a: { app: string }) => a.app === "blender").connection as string;
const history = async () => (await ok("get_history", { limit: 50 }, ben)).entries as { seq: number; kind: string; app: string; actor: any }[];

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-live-teams-"));
  kiln = await startServer({ cwd: project, env: { KILN_AUTH: "team", HOME: project } });
  team = await setUpTeam(kiln);
  expect((await call("set_user_role", { user: "ben@example.com", role: "editor" }, team.owner)).status).toBe(200);
  ben = (await ok("create_token", { name: "Ben's write", scope: "write", user: "ben@example.com" }, team.owner)).token;
  await ok("create_gameobject", { app: "blender", name: "Nudged", type: "Empty" }, team.editor);
}, 180_000);

afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") console.log(`--- blender output ---\n${blender?.output().slice(-6000)}\n--- kiln ---\n${kiln.log().slice(-3000)}`);
});

afterAll(async () => {
  await blender?.stop();
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

describe("live Blender in team mode", () => {
  it("started with Ada's token: Blender connects as Ada, and her hand edit is \"Ada in Blender\"", async () => {
    blender = startLiveBlender(kiln, { cwd: project, env: { KILN_TOKEN: team.editor } });
    await until(async () => (await blenderConnectionAs(ben)) === "live", 90_000, "Blender to connect");
    const presence = await ok("list_presence", {}, ben);
    expect(presence.live_apps).toEqual([expect.objectContaining({ app: "blender", name: "Ada", label: "Ada in Blender" })]);
    await until(async () => (await blender!.command("dump")).objects.some((o: { kiln_name: string }) => o.kiln_name === "Nudged"), 30_000, "Nudged in Blender");

    const seq = (await history())[0].seq;
    expect((await blender.command("nudge")).x).toBeCloseTo(1, 5);
    await until(async () => Math.abs((await nudgedInKiln()).position.x - 1) < 1e-5, 20_000, "the hand edit in Kiln");
    const entries = (await history()).filter((e) => e.seq > seq);
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(e).toMatchObject({ kind: "live", app: "blender" });
      expect(e.actor).toMatchObject({ user_id: team.ids.editor, name: "Ada", client: "live", client_name: expect.stringMatching(/^blender 3\.4/), by: "Ada in Blender" });
    }
    // The person filter finds it under Ada's name, not Ben's.
    expect((await ok("get_history", { person: "Ada", limit: 5 }, ben)).entries[0].seq).toBe(entries[0].seq);
    expect((await ok("get_history", { person: "Ben", limit: 50 }, ben)).entries.some((e: { seq: number }) => e.seq > seq)).toBe(false);
  });

  it("Ben locks Nudged: Ada's hand edit on it is refused, Kiln unchanged, Blender set back, and Blender says why", async () => {
    const lock = await ok("lock", { kind: "object", name: "Nudged", app: "blender" }, ben);
    expect(lock.lock).toMatchObject({ name: "Nudged", holder: { name: "Ben" } });
    const before = await nudgedInKiln();
    const atLock = await nudgedInBlender();
    const seq = (await history())[0].seq;

    expect((await blender!.command("nudge")).x).toBeCloseTo(2, 5); // Blender took the artist's move
    // Kiln refuses it: the add-on prints the refusal's message, and Kiln's state comes back into Blender.
    await until(() => /Kiln refused an edit: LOCKED The object "Nudged" is locked by Ben/.test(blender!.output()), 30_000, "the refusal in Blender's output");
    const restored = await until(async () => {
      const o = await nudgedInBlender();
      return Math.abs(o.matrix_world[3] - 1) < 1e-5 && o;
    }, 30_000, "Nudged set back in Blender");
    expect(close(restored.matrix_world, atLock.matrix_world, 1e-6), `${restored.matrix_world} vs ${atLock.matrix_world}`).toBe(true);
    expect((await blender!.command("status")).last_error).toMatch(/LOCKED The object "Nudged" is locked by Ben/);
    expect(await nudgedInKiln()).toEqual(before);
    expect((await history()).filter((e) => e.seq > seq)).toEqual([]);
    expect(await blenderConnectionAs(ben)).toBe("live"); // refused, not disconnected

    // Once Ben lets go, the same hand edit is taken, as Ada's.
    expect((await ok("unlock", { kind: "object", name: "Nudged", app: "blender" }, ben)).released).toBe(true);
    await blender!.command("nudge");
    await until(async () => Math.abs((await nudgedInKiln()).position.x - 2) < 1e-5, 20_000, "the hand edit after unlock");
    expect((await history())[0].actor.by).toBe("Ada in Blender");
  });
});
