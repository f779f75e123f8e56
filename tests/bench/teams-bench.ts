/**
 * Team mode's cost (docs/teams.md, "Performance"), on the production build:
 * 1. What authentication and the permission check add to a small tool call's p50: the same call
 *    on a personal-mode service and on a team-mode one (with a token, with a session cookie),
 *    interleaved over keep-alive sockets so load from elsewhere weighs on all alike. Target: at
 *    most +0.3 ms. Also the in-process cost of resolving a cached credential and checking a tool.
 * 2. 50 people's Studio sessions (each an open /events stream and a read call every 2 s) and 20
 *    agents (tokens; a call every 250 ms) on one project: a small call's p50 against a single
 *    client's in the same run. Target: within 1.5x.
 * 3. In-process: a cached credential and the permission check; 4. presence and lock checks per call
 *    with 0, 10 and 10,000 locks and people (constant: map lookups).
 * Run: npm run bench teams   (BENCH_CALLS=1000 by default)
 */
import { Agent, request } from "node:http";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, sessionCookieOf, setUpTeam } from "../helpers/team";
import { median, ms, percentile } from "./bench-utils";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = 200;
const SMALL = "get_transaction_status";

/** A keep-alive poster with fixed headers (one socket). */
function poster(base: string, headers: Record<string, string>, sockets = 1) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const url = new URL(base);
  return (tool: string, params: unknown = {}): Promise<number> => new Promise((resolve, reject) => {
    const body = JSON.stringify(params);
    const req = request({ host: url.hostname, port: url.port, path: `/tools/${tool}`, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve(res.statusCode) : reject(new Error(`${tool}: ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

let personal: KilnServer | undefined;
let team: KilnServer | undefined;
try {
  [personal, team] = await Promise.all([startServer(), startServer({ env: { KILN_AUTH: "team" } })]);
  const teamUrl = team.url;
  const people = await setUpTeam(team);

  // 1. The added cost per call.
  const plain = poster(personal.url, {});
  const withToken = poster(team.url, bearer(people.editor));
  const withCookie = poster(team.url, { cookie: people.ownerCookie });
  for (let i = 0; i < WARMUP; i++) await Promise.all([plain(SMALL), withToken(SMALL), withCookie(SMALL)].map((p) => p));
  const t: Record<string, number[]> = { personal: [], token: [], cookie: [] };
  for (let i = 0; i < CALLS; i++) {
    t.personal.push(await timed(() => plain(SMALL)));
    t.token.push(await timed(() => withToken(SMALL)));
    t.cookie.push(await timed(() => withCookie(SMALL)));
  }
  console.log(`1. ${SMALL}, ${CALLS} sequential calls each, interleaved, one keep-alive socket each; p50 (p90)`);
  for (const [k, xs] of Object.entries(t)) {
    const added = median(xs) - median(t.personal);
    console.log(`   ${k.padEnd(9)} ${ms(median(xs)).padStart(9)} (${ms(percentile(xs, 90))})${k === "personal" ? "" : `   added ${ms(added)} ${added <= 0.3 ? "(<= 0.3 ms: ok)" : "(> 0.3 ms: OVER TARGET)"}`}`);
  }

  // 2. A crowd: 50 Studio sessions and 20 agents.
  const single = poster(teamUrl, bearer(people.editor));
  const baseline: number[] = [];
  for (let i = 0; i < CALLS / 2; i++) baseline.push(await timed(() => single(SMALL)));

  const sessions: string[] = [];
  for (let i = 0; i < 50; i++) {
    const link = await post(`${team.url}/tools/invite_user`, { role: i % 2 ? "viewer" : "editor" }, bearer(people.owner));
    const secret = link.body.result.path.split("/").pop();
    const joined = await post(`${team.url}/api/links`, { kind: "invite", secret, name: `Person ${i}`, email: `p${i}@example.com`, password: `password ${i} long` });
    sessions.push(sessionCookieOf(joined.response));
  }
  const agents: string[] = [];
  for (let i = 0; i < 20; i++) agents.push((await post(`${team.url}/tools/create_token`, { name: `agent ${i}`, scope: "write", user: "ada@example.com" }, bearer(people.owner))).body.result.token);

  const streams = await Promise.all(sessions.map(async (cookie) => {
    const controller = new AbortController();
    const r = await fetch(`${teamUrl}/events`, { headers: { cookie }, signal: controller.signal });
    if (r.status !== 200) throw new Error(`/events: ${r.status}`);
    void r.body!.pipeTo(new WritableStream()).catch(() => undefined);
    return controller;
  }));
  let stop = false;
  let background = 0;
  const loop = async (call: (tool: string, p?: unknown) => Promise<number>, every: number, work: (i: number) => [string, unknown]) => {
    await new Promise((r) => setTimeout(r, Math.random() * every));
    for (let i = 0; !stop; i++) {
      const [tool, params] = work(i);
      await call(tool, params).catch(() => undefined);
      background++;
      await new Promise((r) => setTimeout(r, every));
    }
  };
  const loops = [
    ...sessions.map((cookie) => loop(poster(teamUrl, { cookie }), 2000, () => ["get_scene", {}])),
    ...agents.map((token, a) => loop(poster(teamUrl, bearer(token)), 250, (i) => (i % 4 === 3 ? ["set_transform", { target: `Agent${a}`, position: { x: i % 10 } }] : [SMALL, {}]))),
  ];
  for (let a = 0; a < agents.length; a++) await post(`${teamUrl}/tools/create_gameobject`, { name: `Agent${a}`, type: "Empty" }, bearer(agents[a]));
  await new Promise((r) => setTimeout(r, 2000));
  const started = performance.now();
  const crowded: number[] = [];
  for (let i = 0; i < CALLS / 2; i++) crowded.push(await timed(() => single(SMALL)));
  const seconds = (performance.now() - started) / 1000;
  stop = true;
  streams.forEach((c) => c.abort());
  await Promise.all(loops);
  const ratio = median(crowded) / median(baseline);
  console.log(`2. ${SMALL} from one client, ${CALLS / 2} calls: alone ${ms(median(baseline))}; beside 50 Studio sessions (open /events, a read every 2 s) and 20 agents (a call every 250 ms; ${Math.round(background / seconds)} calls/s in all) ${ms(median(crowded))}`);
  console.log(`   ratio ${ratio.toFixed(2)}x ${ratio <= 1.5 ? "(<= 1.5x: ok)" : "(> 1.5x: OVER TARGET)"}`);

} finally {
  await Promise.all([personal?.stop(), team?.stop()]);
}

// 3. In-process, the mechanism alone: resolving a cached credential and checking a tool's permission.
{
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const { loadConfig } = await import("../../server/config");
  const { startKiln } = await import("../../server/runtime");
  const { withCaller } = await import("../../server/teams/actor");
  const { authorize } = await import("../../server/teams/permissions");
  const { findTool } = await import("../../server/tools");
  const home = mkdtempSync(path.join(tmpdir(), "kiln-teams-bench-"));
  const kiln = await startKiln(loadConfig({ KILN_HOME: home, KILN_AUTH: "team" } as unknown as NodeJS.ProcessEnv, process.cwd()), process.cwd());
  try {
    const owner = await kiln.teams.members.create({ email: "o@example.com", name: "O", role: "owner", password: "password 12345" });
    const { token } = await kiln.teams.tokens.create(owner, { name: "bench", scope: "write", expiresIn: null });
    const headers = new Headers({ authorization: `Bearer ${token}`, "content-type": "application/json" });
    const tool = findTool("create_gameobject")!;
    const once = async () => {
      const r = await kiln.teams.credentials.resolve(headers, "http");
      if (!("caller" in r)) throw new Error("refused");
      withCaller(r.caller, () => authorize(tool));
    };
    for (let i = 0; i < 10_000; i++) await once();
    const n = 200_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await once();
    console.log(`3. in-process: a cached token's resolution + the permission check: ${((performance.now() - t0) * 1000 / n).toFixed(2)} µs per call (${n} calls)`);
  } finally {
    kiln.live.closeAll();
    await kiln.workspace.flush();
    await kiln.db.$disconnect();
    await kiln.ownership.release();
    rmSync(home, { recursive: true, force: true });
  }
}

// 4. Presence and lock checks per call, in-process: constant whatever the number of people and locks.
{
  const { Locks } = await import("../../server/teams/locks");
  const { Presence } = await import("../../server/teams/presence");
  const noDb = { softLock: { upsert: async () => undefined, deleteMany: async () => undefined, findMany: async () => [], updateMany: async () => undefined } };
  const actor = (i: number) => ({ userId: `u${i}`, name: `Person ${i}`, role: "editor" as const, client: "browser" as const, session: `tab-${i}` });
  const changes = [{ id: "object/unity/Main/Probe", before: null, after: null }];
  for (const held of [0, 10, 10_000]) {
    const locks = new Locks(noDb as never);
    const presence = new Presence();
    for (let i = 0; i < held; i++) {
      await locks.lock({ key: `object/unity/Main/Thing${i}`, kind: "object", name: `Thing${i}`, app: "unity", scene: "Main" }, actor(i));
      presence.seen(actor(i), "get_scene");
    }
    const me = actor(held + 1);
    const n = 500_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      presence.seen(me, "set_transform");
      locks.touch(me);
      locks.guard(changes, me);
    }
    console.log(`4. presence + lock renewal + lock check per call with ${held} locks held and ${held} people here: ${((performance.now() - t0) * 1000 / n).toFixed(3)} µs (${n} calls)`);
    presence.stop();
    locks.stop();
  }
}
