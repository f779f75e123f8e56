/** Pins parsing into drafts: what is kept as authored, what is refused, and how uids follow steps across YAML edits. */
import { describe, expect, it } from "vitest";
import { STEPS_SLOT, draftFromYaml, matchUids, newUid } from "./draft";

describe("draftFromYaml", () => {
  it("keeps every top-level key in order, unknown ones included", () => {
    const { draft } = draftFromYaml("name: a\nextra: 1\nsteps:\n  - name: S\n    tool: t\n    bogus: true\ndescription: d\n");
    expect(Object.keys(draft!.fields)).toEqual(["name", "extra", "steps", "description"]);
    expect(draft!.fields.steps).toBe(STEPS_SLOT);
    expect(draft!.steps[0].value).toEqual({ name: "S", tool: "t", bogus: true });
  });

  it("keeps a steps value that is not a list as written", () => {
    const { draft } = draftFromYaml("name: a\nsteps: nope\n");
    expect(draft!.fields.steps).toBe("nope");
    expect(draft!.steps).toEqual([]);
  });

  it("reports broken YAML with its line and refuses documents that are not mappings", () => {
    expect(draftFromYaml("name: a\nsteps:\n  - name: \"unclosed\n").problem?.line).toBeGreaterThanOrEqual(3);
    expect(draftFromYaml("name: a\nname: b\n").problem?.message).toMatch(/duplicate key/);
    expect(draftFromYaml("- a\n").problem?.message).toMatch(/mapping/);
  });

  it("gives an empty text an empty draft (a cleared YAML panel clears the canvas)", () => {
    expect(draftFromYaml("  \n").draft).toMatchObject({ fields: {}, steps: [] });
  });
});

describe("matchUids", () => {
  it("follows steps by name, then by position, and mints uids for new ones", () => {
    const [a, b, c] = [newUid(), newUid(), newUid()];
    const previous = [{ uid: a, value: { name: "A" } }, { uid: b, value: { name: "B" } }, { uid: c, value: { name: "C" } }];
    const uids = matchUids(previous, [{ name: "B" }, { name: "A" }, { name: "renamed" }, { name: "new" }]);
    expect(uids.slice(0, 3)).toEqual([b, a, c]);
    expect([a, b, c]).not.toContain(uids[3]);
  });
});

describe("stepsFromClipboard", () => {
  it("reads a list of steps, one step, or a whole recipe's steps", async () => {
    const { stepsFromClipboard } = await import("./clipboard");
    expect(stepsFromClipboard("- name: A\n  tool: t\n- name: B\n  tool: u\n")).toHaveLength(2);
    expect(stepsFromClipboard("name: A\ntool: t\n")).toEqual([{ name: "A", tool: "t" }]);
    expect(stepsFromClipboard("name: r\ndescription: d\nsteps:\n  - name: A\n    tool: t\n")).toEqual([{ name: "A", tool: "t" }]);
  });

  it("refuses text that is not steps", async () => {
    const { stepsFromClipboard } = await import("./clipboard");
    expect(stepsFromClipboard("hello world")).toBeUndefined();
    expect(stepsFromClipboard("[1, 2]")).toBeUndefined();
    expect(stepsFromClipboard("{ unclosed")).toBeUndefined();
    expect(stepsFromClipboard("")).toBeUndefined();
  });
});
