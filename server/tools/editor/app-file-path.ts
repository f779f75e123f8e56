/**
 * Where save_app_file may have a live application write its file: inside the project folder,
 * also after resolving symlinks (a folder `linkdir -> /tmp` inside the project must not lead out),
 * never inside Kiln's own folder (KILN_HOME, by default `.kiln/`: the database and blobs live
 * there) nor any folder named `.kiln`, and never through a name holding control characters.
 * The same real-path rule as import_asset (server/pipeline/import-file.ts).
 */
import { lstat, mkdir, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { invalid } from "../../errors";

/** C0 and C1 controls and DEL: a file name holding one is refused, not cleaned. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const refuse = (message: string) => invalid("INVALID_PARAMS", `path ${message}.`, { fields: [{ path: "path", message }] });

const inside = (dir: string, p: string) => {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/**
 * `p` with every symlink resolved, also where it does not exist yet: the real path of its
 * deepest existing ancestor, then the rest. A dangling symlink is followed to where it points
 * (an application saving onto it would create that file).
 */
async function realAncestor(p: string, hops = 0): Promise<string> {
  const link = await lstat(p).then((s) => s.isSymbolicLink(), () => false);
  if (link && hops < 40) {
    const to = path.resolve(path.dirname(p), await readlink(p));
    return realAncestor(path.join(await realAncestor(path.dirname(to), hops + 1), path.basename(to)), hops + 1);
  }
  let dir = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(dir), ...rest);
    } catch {
      if (dir !== p && hops < 40 && (await lstat(dir).then((st) => st.isSymbolicLink(), () => false))) return path.join(await realAncestor(dir, hops + 1), ...rest);
      const parent = path.dirname(dir);
      if (parent === dir) return p;
      rest.unshift(path.basename(dir));
      dir = parent;
    }
  }
}

/**
 * Checks `requested` (relative to `root`) and creates its folder; returns the absolute path to
 * give the application. Throws INVALID_PARAMS naming the field when the path is refused.
 */
export async function appFileTarget(root: string, home: string, requested: string, extension: string): Promise<string> {
  if (CONTROL.test(requested)) throw refuse("must not contain control characters");
  const target = path.resolve(root, requested);
  if (!inside(root, target)) throw refuse("must stay inside the project folder");
  if (path.relative(root, target).split(path.sep).some((part) => part.toLowerCase() === ".kiln")) throw refuse("must not be inside a .kiln folder (Kiln's own data)");
  if (path.extname(target).toLowerCase() !== extension) throw refuse(`must end in ${extension}`);
  const [realRoot, realHome] = await Promise.all([realpath(root), realAncestor(home)]);
  const check = async () => {
    // The file itself may exist as a symlink: the application would write where it points.
    const real = await realAncestor(target);
    if (!inside(realRoot, real)) throw refuse("must stay inside the project folder (a symlink on the way leads out of it)");
    if (inside(realHome, real)) throw refuse("must not be inside Kiln's own folder (KILN_HOME)");
  };
  await check();
  await mkdir(path.dirname(target), { recursive: true });
  await check(); // the folders just created, or changed meanwhile
  const existing = await lstat(target).catch(() => undefined);
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) throw refuse("names something that is not a file");
  return target;
}
