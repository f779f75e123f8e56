import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRegularFileInside } from "./regular-file";

describe("readRegularFileInside (what /screenshots serves)", () => {
  const root = mkdtempSync(path.join(tmpdir(), "kiln-regular-file-"));
  const dir = path.join(root, "screenshots");
  mkdirSync(dir);
  writeFileSync(path.join(root, "secret.txt"), "secret");
  writeFileSync(path.join(dir, "ok.png"), "png");
  symlinkSync(path.join(root, "secret.txt"), path.join(dir, "link.png"));
  symlinkSync(path.join(dir, "ok.png"), path.join(dir, "inner-link.png"));
  mkdirSync(path.join(dir, "folder.png"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("reads a regular file in the folder", async () => {
    expect((await readRegularFileInside(dir, "ok.png"))?.toString()).toBe("png");
  });

  it.each(["link.png", "inner-link.png", "folder.png", "missing.png", "../secret.txt", "..", ""])("serves nothing for %j", async (name) => {
    expect(await readRegularFileInside(dir, name)).toBeUndefined();
  });

  it("serves nothing over the size cap", async () => {
    expect(await readRegularFileInside(dir, "ok.png", 2)).toBeUndefined();
  });
});
