import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";

// `npm test` (scripts/test-all.mjs) runs every stage even when an earlier one fails, prints each
// stage's result and duration, and exits non-zero when any failed.
describe("npm test's stage runner", () => {
  const runner = (stages: string) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", `import { runStages } from "./scripts/test-all.mjs"; process.exit(await runStages(${stages}));`], { encoding: "utf8" });
  const node = (name: string, code: number) => `{ name: "${name}", cmd: process.execPath, args: ["-e", "console.log('ran ${name}'); process.exit(${code})"] }`;

  it("runs the stages after a failing one and reports all of them", () => {
    const r = runner(`[${node("typecheck", 0)}, ${node("build", 3)}, ${node("vitest", 0)}, ${node("e2e", 1)}]`);
    expect(r.status).toBe(1);
    for (const s of ["typecheck", "build", "vitest", "e2e"]) expect(r.stdout).toContain(`ran ${s}`);
    expect(r.stdout).toMatch(/pass\s+typecheck\s+\d/);
    expect(r.stdout).toMatch(/FAIL\s+build\s+\S+\s+exit 3/);
    expect(r.stdout).toMatch(/pass\s+vitest/);
    expect(r.stdout).toMatch(/FAIL\s+e2e\s+\S+\s+exit 1 \(the build failed first\)/);
    expect(r.stdout).toContain("2 of 4 stage(s) failed");
  });

  it("runs a stage marked alongside at the same time as the next one, printing its output when it ends", () => {
    const slow = `{ name: "typecheck", alongside: true, cmd: process.execPath, args: ["-e", "setTimeout(() => { console.log('typecheck says hi'); process.exit(4); }, 300)"] }`;
    const build = `{ name: "build", cmd: process.execPath, args: ["-e", "console.log('build ran'); setTimeout(() => {}, 600)"] }`;
    const r = runner(`[${slow}, ${build}, ${node("vitest", 0)}]`);
    expect(r.status).toBe(1);
    // The build started before the typecheck ended (its line comes first), and the typecheck's output is kept.
    expect(r.stdout.indexOf("build ran")).toBeLessThan(r.stdout.indexOf("typecheck says hi"));
    expect(r.stdout).toMatch(/FAIL\s+typecheck\s+\S+\s+exit 4/);
    expect(r.stdout).toMatch(/pass\s+build/);
    expect(r.stdout).toContain("ran vitest");
  });

  it("exits 0 when every stage passed", () => {
    const r = runner(`[${node("typecheck", 0)}, ${node("vitest", 0)}]`);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("all passed");
  });

  it("package.json's test script is this runner", async () => {
    const pkg = JSON.parse((await import("node:fs")).readFileSync("package.json", "utf8"));
    expect(pkg.scripts.test).toBe("node scripts/test-all.mjs");
  });
});
