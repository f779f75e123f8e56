// Invariant: axis conversion is exact and physical: Euler angles survive matrix round trips in each
// app's own order (gimbal lock included), local transforms survive app → canonical → app, and a
// transform converted between two apps describes the same placement in the physical world
// (up stays up, front stays front, lights keep shining the same way).
import { describe, expect, it } from "vitest";
import { APPS, type AppId, type Vec3 } from "../scene/types";
import {
  IDENTITY3, apply3, basis, eulerToM3, lightFix, m3ToEuler, m3ToQuat, mul3, permuteTriples, quatToM3, transpose3,
  trsFromCanonical, trsToCanonical, type M3, type Trs, type V3,
} from "./axes";

const close = (a: ArrayLike<number>, b: ArrayLike<number>, tol = 1e-9) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i]), `[${i}] ${a[i]} vs ${b[i]}`).toBeLessThan(tol);
};
const vecClose = (a: Vec3, b: Vec3, tol = 1e-9) => close([a.x, a.y, a.z], [b.x, b.y, b.z], tol);

// A deterministic spread of angles with the middle angle inside (-90, 90).
const ANGLES: Vec3[] = [
  { x: 0, y: 0, z: 0 }, { x: 10, y: 20, z: 30 }, { x: -45, y: 135, z: -170 }, { x: 80, y: -179, z: 5 },
  { x: 89.999, y: 12, z: 34 }, { x: -33.3, y: 0.001, z: 179.5 },
];
/** The middle angle of each app's order: Unity/Godot (Y·X·Z) keep x in [-90, 90], Blender (Z·Y·X) y. */
const asAppAngles = (app: AppId, v: Vec3): Vec3 => (app === "blender" ? { x: v.y, y: v.x, z: v.z } : v);

describe("Euler angles per app", () => {
  it.each(APPS.flatMap((app) => ANGLES.map((v) => [app, asAppAngles(app, v)] as const)))("%s %j survives matrix → Euler", (app, angles) => {
    vecClose(m3ToEuler(app, eulerToM3(app, angles)), angles, 1e-7);
  });

  it.each(APPS.flatMap((app) => [90, -90].map((mid) => [app, mid] as const)))("%s in gimbal lock (middle angle %i) gives an equivalent rotation", (app, mid) => {
    const angles = asAppAngles(app, { x: mid, y: 25, z: 40 });
    const back = m3ToEuler(app, eulerToM3(app, angles));
    close(eulerToM3(app, back), eulerToM3(app, angles), 1e-9);
  });

  it.each(APPS)("%s keeps an animated rotation continuous past ±180°", (app) => {
    const axis = (deg: number) => (app === "blender" ? { x: 0, y: 0, z: deg } : { x: 0, y: deg, z: 0 });
    let near = axis(170);
    for (const deg of [175, 185, 200, 270, 359, 365]) {
      near = m3ToEuler(app, eulerToM3(app, axis(deg)), near);
      vecClose(near, axis(deg), 1e-7);
    }
  });

  it("quaternions and matrices agree", () => {
    const m = eulerToM3("unity", { x: 10, y: 20, z: 30 });
    close(quatToM3(m3ToQuat(m)), m, 1e-12);
  });
});

const randomTrs = (app: AppId, seed: number): Trs => ({
  t: [seed, -2 * seed + 1, 0.5 * seed],
  r: eulerToM3(app, asAppAngles(app, { x: 13 * seed, y: -29 * seed, z: 47 * seed })),
  s: [1 + seed, -0.5, 2],
});

describe("local transforms", () => {
  it.each(APPS.flatMap((app) => [false, true].map((light) => [app, light] as const)))("%s (light fix: %s) round-trips through canonical exactly", (app, light) => {
    const fix = light ? lightFix(app) : IDENTITY3;
    for (const seed of [0, 1, 2.5]) {
      const local = randomTrs(app, seed);
      const back = trsFromCanonical(app, trsToCanonical(app, local, fix, fix), fix, fix);
      close(back.t, local.t, 1e-12);
      close(back.r, local.r, 1e-12);
      close(back.s, local.s, 1e-15);
    }
  });

  // The physical world matrix of a TRS in app space is B · (T R S) · Bᵀ (B = basis).
  const physical = (app: AppId, trs: Trs): M3 => {
    const rs = mul3(trs.r, [trs.s[0], 0, 0, 0, trs.s[1], 0, 0, 0, trs.s[2]]);
    return mul3(mul3(basis(app), rs), transpose3(basis(app)));
  };

  it.each(APPS.flatMap((a) => APPS.filter((b) => b !== a).map((b) => [a, b] as const)))("%s → %s keeps the physical placement", (from, to) => {
    const local = randomTrs(from, 1.5);
    const there = trsFromCanonical(to, trsToCanonical(from, local));
    close(apply3(basis(to), there.t), apply3(basis(from), local.t), 1e-12);
    close(physical(to, there), physical(from, local), 1e-12);
  });

  it("an object 1 m above Blender's ground is 1 m above Unity's and Godot's", () => {
    const blender: Trs = { t: [0, 0, 1], r: IDENTITY3, s: [1, 1, 1] };
    const canonical = trsToCanonical("blender", blender);
    expect(trsFromCanonical("unity", canonical).t).toEqual([-0, 1, 0].map((v) => v + 0));
    expect(trsFromCanonical("godot", canonical).t).toEqual([0, 1, 0]);
  });

  it("Blender's front (-Y) is the canonical and Unity front (+Z)", () => {
    const front = apply3(basis("blender"), [0, -1, 0]);
    close(front, [0, 0, 1]);
    close(apply3(transpose3(basis("unity")), front), [0, 0, 1]);
  });
});

describe("lights", () => {
  it.each(APPS)("%s: the light fix maps the interchange light direction (-Z) onto the app's own", (app) => {
    const forward: Record<AppId, V3> = { blender: [0, 0, -1], unity: [0, 0, 1], godot: [0, 0, -1] };
    close(apply3(lightFix(app), [0, 0, -1]), apply3(basis(app), forward[app]));
    close(apply3(lightFix(app), [0, 1, 0]), apply3(basis(app), [0, 1, 0]));
  });

  it("a Blender light tilted 30° about X shines the same way as its Unity conversion", () => {
    const fix = (app: AppId) => lightFix(app);
    const blender: Trs = { t: [0, 0, 0], r: eulerToM3("blender", { x: 30, y: 0, z: 0 }), s: [1, 1, 1] };
    const unity = trsFromCanonical("unity", trsToCanonical("blender", blender, fix("blender")), fix("unity"));
    const shine = (app: AppId, r: M3, local: V3) => apply3(basis(app), apply3(r, local));
    close(shine("unity", unity.r, [0, 0, 1]), shine("blender", blender.r, [0, 0, -1]), 1e-12);
    vecClose(m3ToEuler("unity", unity.r), { x: 60, y: 180, z: 0 }, 1e-9);
  });
});

describe("geometry", () => {
  it("permutes and flips triples by a basis without touching the source", () => {
    const src = Float32Array.from([1, 2, 3, -4, 5, -6]);
    expect([...permuteTriples(basis("blender"), src)]).toEqual([1, 3, -2, -4, -6, -5]);
    expect([...permuteTriples(basis("unity"), src)]).toEqual([-1, 2, 3, 4, 5, -6]);
    expect([...permuteTriples(transpose3(basis("blender")), permuteTriples(basis("blender"), src))]).toEqual([...src]);
    expect([...src]).toEqual([1, 2, 3, -4, 5, -6]);
  });
});
