/**
 * save_app_file's path (issue 26, "Paths and processes"): inside the project folder also after
 * resolving symlinks, never in `.kiln/` or KILN_HOME, no control characters. The handler runs with
 * a live app stand-in that records what it was asked to save; a refused path never reaches it.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Kiln } from "../../runtime";
import { saveAppFile } from "./save-app-file";

let root: string;
let outside: string;
const asked: unknown[] = [];
const kiln = () => ({
  config: { projectDir: root, home: path.join(root, ".kiln") },
  live: { isLive: () => true, status: () => ({ connection: "live" }), request: async (_app: string, _op: string, params: unknown) => { asked.push(params); return { result: {} }; } },
}) as unknown as Kiln;
const save = (p: string) => saveAppFile.handler(saveAppFile.input.parse({ app: "blender", path: p }), { kiln: kiln() });

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "kiln-save-app-file-")));
  outside = realpathSync(mkdtempSync(path.join(tmpdir(), "kiln-outside-")));
  mkdirSync(path.join(root, ".kiln"));
  mkdirSync(path.join(root, "scenes"));
  symlinkSync(outside, path.join(root, "linkdir"));
  symlinkSync(path.join(outside, "x.blend"), path.join(root, "scenes", "link.blend"));
  symlinkSync(path.join(root, ".kiln"), path.join(root, "home-link"));
  symlinkSync(path.join(outside, "not-yet"), path.join(root, "dangling-dir"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe("save_app_file's path", () => {
  it.each([
    ["linkdir/escape.blend", /a symlink on the way leads out/],
    ["linkdir/new/deeper/escape.blend", /a symlink on the way leads out/],
    ["scenes/link.blend", /a symlink on the way leads out/],
    ["dangling-dir/sub/x.blend", /a symlink on the way leads out/],
    [".kiln/kiln.blend", /\.kiln folder/],
    ["scenes/.KILN/x.blend", /\.kiln folder/],
    ["home-link/x.blend", /KILN_HOME/],
    ["scenes/a\u0007b.blend", /control characters/],
    ["scenes/a\nb.blend", /control characters/],
    ["scenes/a\u009bb.blend", /control characters/],
    ["../x.blend", /inside the project folder/],
    ["scenes/x.tscn", /must end in \.blend/],
  ])("refuses %j, asking the application nothing and creating no folder", async (p, why) => {
    asked.length = 0;
    await expect(save(p)).rejects.toMatchObject({ code: "INVALID_PARAMS", message: expect.stringMatching(why), details: { fields: [{ path: "path" }] } });
    expect(asked).toEqual([]);
  });

  it("created nothing outside the project through the symlinked folder", () => {
    expect(() => realpathSync(path.join(outside, "new"))).toThrow();
  });

  it("accepts a path inside the project, creating its folder, and passes the absolute path", async () => {
    asked.length = 0;
    writeFileSync(path.join(root, "scenes", "old.blend"), "");
    expect(await save("scenes/levels/one.blend")).toEqual({ app: "blender", file: path.join(root, "scenes/levels/one.blend") });
    expect(await save("scenes/old.blend")).toMatchObject({ file: path.join(root, "scenes/old.blend") });
    expect(asked).toEqual([{ path: path.join(root, "scenes/levels/one.blend") }, { path: path.join(root, "scenes/old.blend") }]);
  });
});
