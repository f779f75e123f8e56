// Invariant: recipes are found by their `name` field, project-local before ~/.kiln (HOME is
// respected); names are checked before any file-system access; broken files are listed with
// their errors and never break a listing; writes only touch <project>/recipes/<name>.yaml.
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeCatalogue } from "../../tests/fixtures/recipes/fake-catalogue";
import { RecipeStoreError, deleteRecipe, findRecipe, listRecipes, saveRecipe } from "./store";
import { prepareRecipe, type PrepareOptions } from "./prepare";

const recipeText = (name: string, description = "d", tool = "set_camera") =>
  `name: ${name}\ndescription: ${description}\nsteps:\n  - name: Camera\n    tool: ${tool}\n`;

let root: string;
let project: string;
let home: string;
let savedHome: string | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "kiln-recipes-"));
  project = join(root, "project");
  home = join(root, "home");
  await mkdir(join(project, "recipes"), { recursive: true });
  await mkdir(join(home, ".kiln", "recipes"), { recursive: true });
  savedHome = process.env.HOME;
  process.env.HOME = home; // the store must find ~/.kiln through os.homedir()
});

afterEach(async () => {
  process.env.HOME = savedHome;
  await rm(root, { recursive: true, force: true });
});

const put = (dir: "project" | "user", file: string, text: string) =>
  writeFile(join(dir === "project" ? join(project, "recipes") : join(home, ".kiln", "recipes"), file), text);
const options = () => ({ projectDir: project, catalogue: fakeCatalogue });

describe("recipe store", () => {
  it("lets a project recipe shadow a user recipe of the same name", async () => {
    await put("project", "scene.yaml", recipeText("scene", "project version"));
    await put("user", "scene.yml", recipeText("scene", "user version"));
    await put("user", "only-user.yaml", recipeText("only-user"));

    const found = await findRecipe(options(), "scene");
    expect(found).toMatchObject({ source: "project", description: "project version", valid: true });
    expect((await findRecipe(options(), "only-user"))?.source).toBe("user");

    const listed = await listRecipes(options());
    expect(listed.map((e) => [e.name, e.source, e.shadowed])).toEqual([
      ["scene", "project", false],
      ["only-user", "user", false],
      ["scene", "user", true],
    ]);
    expect(listed[2].shadowed_by).toBe(join(project, "recipes", "scene.yaml"));
    expect(listed[0]).toMatchObject({ steps: 1, errors: [], path: join(project, "recipes", "scene.yaml") });
  });

  it("finds a recipe by its name field, not its file name", async () => {
    await put("project", "whatever.yaml", recipeText("lighting"));
    expect((await findRecipe(options(), "lighting"))?.path).toBe(join(project, "recipes", "whatever.yaml"));
    expect(await findRecipe(options(), "whatever")).toBeUndefined();
  });

  it("prefers <name>.yaml when two project files declare the same name", async () => {
    await put("project", "a-copy.yaml", recipeText("lighting", "copy"));
    await put("project", "lighting.yaml", recipeText("lighting", "canonical"));
    expect((await findRecipe(options(), "lighting"))?.description).toBe("canonical");
    const listed = await listRecipes(options());
    expect(listed.find((e) => e.path.endsWith("a-copy.yaml"))?.shadowed).toBe(true);
  });

  it("lists unreadable and invalid files with their errors instead of failing", async () => {
    await put("project", "broken.yaml", "name: [unclosed\n");
    await put("project", "bad-tool.yaml", recipeText("bad-tool", "d", "no_such_tool"));
    await put("project", "huge.yaml", `name: huge\ndescription: "${"x".repeat(1024 * 1024)}"\n`);
    await mkdir(join(project, "recipes", "folder.yaml"));
    await put("project", "notes.txt", "not a recipe");

    const listed = await listRecipes(options());
    const byPath = (file: string) => listed.find((e) => e.path.endsWith(file));
    expect(listed).toHaveLength(4);
    expect(byPath("broken.yaml")).toMatchObject({ name: "broken", valid: false, errors: [{ line: 2 }] });
    expect(byPath("bad-tool.yaml")).toMatchObject({ name: "bad-tool", valid: false, steps: 1 });
    expect(byPath("bad-tool.yaml")?.errors[0].message).toMatch(/unknown tool "no_such_tool"/);
    expect(byPath("huge.yaml")?.errors[0].message).toMatch(/limit is 262144 bytes/);
    expect(byPath("folder.yaml")?.errors[0].message).toBe("not a regular file");
  });

  it("parses an unchanged file once and rereads it when it changes", async () => {
    const steps = (n: number, tool: string) => Array.from({ length: n }, (_, i) => `  - name: S${i}\n    tool: ${tool}`).join("\n");
    await put("project", "big.yaml", `name: big\ndescription: d\nsteps:\n${steps(1000, "set_camera")}\n`);
    // Counted through the `prepare` port (where the service parses): a mechanism, not a clock.
    let parses = 0;
    const counting = { ...options(), prepare: async (text: string, o: PrepareOptions) => { parses++; return prepareRecipe(text, o); } };
    expect((await listRecipes(counting))[0]).toMatchObject({ name: "big", valid: true, steps: 1000 });
    expect(parses).toBe(1);
    const again = await listRecipes(counting);
    expect(again[0]).toMatchObject({ name: "big", valid: true, steps: 1000, shadowed: false });
    expect(parses, "the unchanged file is not parsed again").toBe(1);

    await put("project", "big.yaml", `name: big\ndescription: d\nsteps:\n${steps(999, "no_such_tool")}\n`);
    expect((await listRecipes(options()))[0]).toMatchObject({ name: "big", valid: false, steps: 999 });
  });

  it("lists a file of more than 1,000 steps as invalid without parsing it", async () => {
    const steps = Array.from({ length: 1001 }, (_, i) => `  - { name: S${i}, tool: set_camera }`).join("\n");
    await put("project", "huge-steps.yaml", `name: huge-steps\ndescription: d\nsteps:\n${steps}\n`);
    const [entry] = await listRecipes(options());
    expect(entry).toMatchObject({ valid: false, steps: 0 });
    expect(entry.errors[0].message).toMatch(/the limit is 1000 steps/);
  });

  it("lists nothing when neither folder exists", async () => {
    await rm(root, { recursive: true, force: true });
    expect(await listRecipes(options())).toEqual([]);
  });

  it.each(["../secret", "a/b", "a.b", "", "name with space", "..", "%2e%2e"])("refuses the name %j before touching the disk", async (name) => {
    await expect(findRecipe(options(), name)).rejects.toMatchObject({ code: "INVALID_RECIPE_NAME" });
    await expect(saveRecipe(project, name, recipeText("x"))).rejects.toBeInstanceOf(RecipeStoreError);
    await expect(deleteRecipe(project, name)).rejects.toBeInstanceOf(RecipeStoreError);
  });

  it("saves to <project>/recipes/<name>.yaml and deletes only that file", async () => {
    await rm(join(project, "recipes"), { recursive: true });
    const { path } = await saveRecipe(project, "new-one", recipeText("new-one"));
    expect(path).toBe(join(project, "recipes", "new-one.yaml"));
    expect(await readFile(path, "utf8")).toBe(recipeText("new-one"));
    expect(await readdir(join(project, "recipes"))).toEqual(["new-one.yaml"]); // no temp file left
    expect((await findRecipe(options(), "new-one"))?.valid).toBe(true);

    await put("project", "new-one.yml", recipeText("new-one"));
    expect(await deleteRecipe(project, "new-one")).toBe(true);
    expect(await deleteRecipe(project, "new-one")).toBe(false);
    expect(await readdir(join(project, "recipes"))).toEqual(["new-one.yml"]);
  });

  it("refuses to save text whose name field differs or that is not YAML", async () => {
    await expect(saveRecipe(project, "a", recipeText("b"))).rejects.toMatchObject({ code: "NAME_MISMATCH" });
    await expect(saveRecipe(project, "a", "name: [oops\n")).rejects.toMatchObject({ code: "INVALID_RECIPE" });
    expect(await readdir(join(project, "recipes"))).toEqual([]);
  });
});
