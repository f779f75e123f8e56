/**
 * Issue 26, "Paths and processes", over HTTP against the production build: a symlink planted in
 * KILN_HOME/screenshots is not served; names with bidirectional overrides, zero-width characters or
 * a BOM are refused with the field named and nothing created. (save_app_file's paths:
 * server/tools/editor/save-app-file.test.ts; the database claim: server/ownership/owner.test.ts;
 * a busy port: tests/cli/busy-port.test.ts.)
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
let outside: string;
beforeAll(async () => {
  kiln = await startServer();
  outside = mkdtempSync(path.join(tmpdir(), "kiln-outside-"));
}, 180_000);
afterAll(async () => {
  await kiln?.stop();
  rmSync(outside, { recursive: true, force: true });
});

describe("/screenshots serves only regular files inside its folder", () => {
  it("a real screenshot is served; a symlink planted beside it, to a file outside or to that screenshot, is 404", async () => {
    const shot = await kiln.ok("take_screenshot", { width: 32, height: 32 });
    const real = await fetch(`${kiln.url}${shot.url}`);
    expect(real.status).toBe(200);
    expect(real.headers.get("content-type")).toBe("image/png");
    writeFileSync(path.join(outside, "secret.txt"), "not for you");
    const dir = path.join(kiln.home, "screenshots");
    for (const target of [path.join(outside, "secret.txt"), path.join(dir, path.basename(shot.url))]) {
      const planted = `${randomUUID()}.png`;
      symlinkSync(target, path.join(dir, planted));
      const r = await fetch(`${kiln.url}/screenshots/${planted}`);
      expect(r.status, target).toBe(404);
      expect((await r.json()).error.code).toBe("SCREENSHOT_NOT_FOUND");
    }
  });
});

describe("names refuse invisible and bidirectional controls", () => {
  it.each([["Cube\u202Egnp.exe"], ["\uFEFFCube"], ["Cu\u200Bbe"]])("create_gameobject %j: 400 naming the field, nothing created", async (name) => {
    const before = (await kiln.ok("list_objects", {})).objects.length;
    const r = await kiln.call("create_gameobject", { name, type: "Cube" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_PARAMS");
    expect(r.body.error.details.fields).toEqual([expect.objectContaining({ path: "name", message: expect.stringMatching(/invisible or bidirectional control characters \(U\+/) })]);
    expect((await kiln.ok("list_objects", {})).objects.length).toBe(before);
  });

  it("save_version refuses one too, and an ordinary name with emoji and a Persian non-joiner is kept as written", async () => {
    expect((await kiln.call("save_version", { name: "v1\u202E" })).status).toBe(400);
    const ok = await kiln.ok("create_gameobject", { name: "می\u200Cخواهم 👩\u200D🚀", type: "Cube" });
    expect(ok.object.name).toBe("می\u200Cخواهم 👩\u200D🚀");
  });
});
