/**
 * Soft locks and presence as tools (docs/teams.md, "Locks" and "Presence"): `lock`, `unlock`,
 * `list_locks`, `list_presence` and `report_presence` (what a Studio tab says about where it is).
 * The rules live in server/teams/locks.ts and server/teams/presence.ts; these resolve what a lock
 * is on (an object in a scene of an app, a material, a scene, a recipe) to the record it covers.
 */
import { z } from "zod";
import { defineTool } from "./define-tool";
import { appParam, name, num, bool } from "./schemas";
import { getMaterial, getObject, getScene } from "../scene/state";
import { ids, type AppId } from "../scene/types";
import { RECIPE_NAME_PATTERN } from "../recipes/schema";
import { currentCaller, describeActor, ROLES, CLIENT_KINDS } from "../teams/actor";
import { initialsOf } from "../teams/presence";
import { LOCK_KINDS, DEFAULT_LOCK_MINUTES, lockView, type LockKind, type LockTarget } from "../teams/locks";
import { requirePermission } from "../teams/permissions";
import type { Kiln } from "../runtime";
import { invalid } from "../errors";

const lockOut = z.object({
  key: z.string().describe("The record it covers (object/<app>/<scene>/<name>, material/…, scene/…) or recipe/<name>."),
  kind: z.enum(LOCK_KINDS), name: z.string(), app: z.string().nullable(), scene: z.string().nullable(),
  holder: z.object({
    id: z.string().nullable(), name: z.string(), client: z.string(), client_name: z.string().nullable(), session: z.string(),
    label: z.string().describe('How to show the holder: "Ada (browser)", "Ada via Claude Desktop".'),
  }),
  since: z.string(), expires_at: z.string().describe("Renewed by the holder's activity."),
});

const targetInput = {
  kind: z.enum(LOCK_KINDS).describe("What to lock: an object, a material, a scene (and so its objects) or a recipe."),
  name: name("The name"),
  app: appParam().describe("The app of an object, material or scene; KILN_DEFAULT_APP when absent."),
  scene: name("The scene").optional().describe("The scene of an object; the app's active scene when absent."),
};

/** The record a lock on `input` covers; NOT_FOUND when it does not exist (recipes may be new). */
function resolveTarget(kiln: Kiln, input: { kind: LockKind; name: string; app?: AppId; scene?: string }): LockTarget {
  if (input.kind === "recipe") {
    if (!RECIPE_NAME_PATTERN.test(input.name))
      throw invalid("INVALID_PARAMS", 'Invalid parameter "name": a recipe name is letters, digits and hyphens only.', { fields: [{ path: "name", message: "letters, digits and hyphens" }] });
    return { key: `recipe/${input.name}`, kind: "recipe", name: input.name, app: null, scene: null };
  }
  const app = input.app ?? kiln.config.defaultApp;
  const state = kiln.workspace.state;
  if (input.kind === "material") {
    const m = getMaterial(state, app, input.name);
    return { key: m.id, kind: "material", name: m.name, app, scene: null };
  }
  if (input.kind === "scene") {
    const s = getScene(state, app, input.name);
    return { key: s.id, kind: "scene", name: s.name, app, scene: s.name };
  }
  const scene = getScene(state, app, input.scene);
  const o = getObject(state, scene, input.name);
  return { key: o.id, kind: "object", name: o.name, app, scene: scene.name };
}

export const lockTool = defineTool({
  name: "lock",
  group: "teams",
  access: "write",
  idempotent: true,
  description:
    "Lock an object, material, scene or recipe while you edit it: a change to it by anyone else is refused with 423 LOCKED naming you. " +
    "Locking what you hold renews it. It expires after `minutes` (default 30) without activity of yours, and goes when your session ends.",
  input: z.strictObject({
    ...targetInput,
    minutes: num(z.number().int().min(1).max(24 * 60)).default(DEFAULT_LOCK_MINUTES).describe("How long the lock lasts without activity of yours."),
  }),
  output: z.object({ lock: lockOut, renewed: z.boolean().describe("You held it already; its expiry was renewed.") }),
  handler: async (input, { kiln }) => {
    const target = resolveTarget(kiln, input);
    const { lock, renewed } = await kiln.teams.locks.lock(target, currentCaller().actor, input.minutes);
    return { lock: lockView(lock), renewed };
  },
});

export const unlockTool = defineTool({
  name: "unlock",
  group: "teams",
  access: "write",
  idempotent: true,
  description:
    "Release your lock on an object, material, scene or recipe. `force: true` breaks someone else's lock (owners only; recorded in the audit log). " +
    "Unlocking what nobody holds changes nothing (released: false).",
  input: z.strictObject({
    ...targetInput,
    force: bool().default(false).describe("Break another person's lock (owners only)."),
  }),
  output: z.object({ released: z.boolean(), broken: z.boolean().describe("It was someone else's lock, broken by an owner."), lock: lockOut.nullable() }),
  handler: async (input, { kiln }) => {
    const target = input.kind === "recipe" ? resolveTarget(kiln, input) : resolveOrKey(kiln, input);
    const { actor } = currentCaller();
    const held = kiln.teams.locks.get(target.key);
    const breaking = !!held && !kiln.teams.locks.isHolder(held, actor) && input.force;
    if (breaking) requirePermission("Breaking another person's lock", "admin");
    const released = await kiln.teams.locks.unlock(target.key, actor, breaking);
    return { released: !!released, broken: breaking && !!released, lock: released ? lockView(released) : null };
  },
});

/** For unlock: the lock's key even when its record is gone (an object deleted by its holder). */
function resolveOrKey(kiln: Kiln, input: { kind: LockKind; name: string; app?: AppId; scene?: string }): LockTarget {
  try {
    return resolveTarget(kiln, input);
  } catch (e) {
    const app = input.app ?? kiln.config.defaultApp;
    const key = input.kind === "material" ? ids.material(app, input.name)
      : input.kind === "scene" ? ids.scene(app, input.name)
      : input.scene ? ids.object(app, input.scene, input.name) : null;
    if (key && kiln.teams.locks.get(key)) return { key, kind: input.kind, name: input.name, app, scene: input.scene ?? null };
    throw e;
  }
}

export const listLocks = defineTool({
  name: "list_locks",
  group: "teams",
  access: "read",
  description: "The locks held now, oldest first: what, by whom, since when and until when (renewed by the holder's activity).",
  input: z.strictObject({
    kind: z.enum(LOCK_KINDS).optional().describe("Only locks on this kind of thing."),
    mine: bool().default(false).describe("Only the locks you hold."),
  }),
  output: z.object({ locks: z.array(lockOut) }),
  handler: async (input, { kiln }) => {
    const { actor } = currentCaller();
    const locks = kiln.teams.locks.list()
      .filter((l) => (!input.kind || l.kind === input.kind) && (!input.mine || kiln.teams.locks.isHolder(l, actor)));
    return { locks: locks.map((l) => lockView(l)) };
  },
});

const studioPlace = z.object({
  page: z.string().max(200), scene: z.string().max(200).nullable(), selected: z.string().max(200).nullable(), recipe: z.string().max(200).nullable(),
});

const presenceOut = z.object({
  session: z.string(), user_id: z.string().nullable(), name: z.string(), initials: z.string(), role: z.enum(ROLES), client: z.enum(CLIENT_KINDS),
  client_name: z.string().nullable(), token: z.string().nullable(), label: z.string(),
  since: z.string(), last_seen: z.string().describe("Their last call."), last_tool: z.string().nullable(),
  studio: studioPlace.nullable().describe("Where a Studio tab is (page, scene, selected object, recipe), as it last reported."),
  connected: z.boolean().describe("An event stream of this session is open (a Studio tab)."),
});

export const listPresence = defineTool({
  name: "list_presence",
  group: "teams",
  access: "read",
  description:
    "Who is here now: people in the Studio (page, scene, selected object, recipe open), agents and other clients (client name, last call), " +
    "and the live applications with who runs them. Clients leave when their Studio tab closes or after 5 minutes without a call.",
  input: z.strictObject({}),
  output: z.object({
    people: z.array(presenceOut),
    live_apps: z.array(z.object({ app: z.string(), instance: z.string(), file: z.string(), since: z.string(), name: z.string(), initials: z.string(), label: z.string() })),
  }),
  handler: async (_input, { kiln }) => ({
    people: kiln.teams.presence.list(),
    live_apps: kiln.live.connected().map((l) => ({
      app: l.app, instance: l.instance, file: l.file, since: l.since.toISOString(), name: l.actor.name, initials: initialsOf(l.actor.name), label: describeActor(l.actor),
    })),
  }),
});

export const reportPresence = defineTool({
  name: "report_presence",
  group: "teams",
  access: "read",
  description: "What a Studio tab reports about where it is (page, scene, selected object, recipe open), so others see it in list_presence and on /events.",
  input: z.strictObject({
    page: z.string().min(1).max(200),
    scene: z.string().max(200).nullable().default(null),
    selected: z.string().max(200).nullable().default(null),
    recipe: z.string().max(200).nullable().default(null),
  }),
  output: presenceOut,
  handler: async (input, { kiln }) => kiln.teams.presence.report(currentCaller().actor, input),
});

export const COLLAB_TOOLS = [lockTool, unlockTool, listLocks, listPresence, reportPresence] as const;
