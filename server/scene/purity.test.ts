// Invariant: the scene core is pure: nothing under server/scene imports Node built-ins, the
// database, Next.js, React or any server layer outside it (except the shared error type).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(path.join(dir, d.name)) : d.name.endsWith(".ts") && !d.name.endsWith(".test.ts") ? [path.join(dir, d.name)] : []);
}

describe("scene core purity", () => {
  it.each(files(__dirname).map((f) => [path.relative(__dirname, f), f]))("%s imports nothing impure", (_rel, file) => {
    const imports = [...readFileSync(file, "utf8").matchAll(/from\s+["']([^"']+)["']/g)].map((m) => m[1]);
    for (const spec of imports) {
      const ok = spec.startsWith(".") ? !path.resolve(path.dirname(file), spec).includes(`${path.sep}db`) && (path.resolve(path.dirname(file), spec).startsWith(__dirname) || spec.endsWith("/errors")) : false;
      expect(ok, `${spec} in ${file}`).toBe(true);
    }
  });

  it.each(files(__dirname).map((f) => [path.relative(__dirname, f), f]))("%s reaches no Node global for I/O or environment", (rel, file) => {
    const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ""); // comments may name them
    expect(code).not.toMatch(/\b(process|require|globalThis|fetch|setTimeout|setInterval|setImmediate)\b/);
    // Buffer is a pure data type, used for base64 in the one module that stores mesh arrays.
    if (rel !== "mesh-data.ts") expect(code).not.toMatch(/\bBuffer\b/);
  });
});
