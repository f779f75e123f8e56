// Builds dist/kiln_bridge.zip: the Blender add-on from bridges/blender/kiln_bridge, for
// Edit > Preferences > Add-ons > Install in a desktop Blender.
//
// No zip binary is assumed: the archive is written by Python's own zipfile module
// (`python3 -m zipfile -c`), which ships with every Python 3 and so is here wherever Blender's
// tooling is. Only the add-on's .py files go in (no __pycache__), under a top-level
// kiln_bridge/ folder, which is the layout Blender's installer expects.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const source = join(root, "bridges", "blender", "kiln_bridge");
const out = join(root, "dist", "kiln_bridge.zip");
const stage = mkdtempSync(join(tmpdir(), "kiln-zip-"));
try {
  const target = join(stage, "kiln_bridge");
  mkdirSync(target);
  const files = readdirSync(source).filter((f) => f.endsWith(".py") && statSync(join(source, f)).isFile());
  for (const f of files) cpSync(join(source, f), join(target, f));
  mkdirSync(join(root, "dist"), { recursive: true });
  rmSync(out, { force: true });
  const python = process.env.PYTHON ?? "python3";
  const r = spawnSync(python, ["-m", "zipfile", "-c", out, target], { stdio: "inherit" });
  if (r.error || r.status !== 0) {
    console.error(`bridge:blender:zip: ${python} -m zipfile failed${r.error ? ": " + r.error.message : ""} (set PYTHON to a Python 3)`);
    process.exit(1);
  }
  console.log(`wrote ${out} (${files.length} files)`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
