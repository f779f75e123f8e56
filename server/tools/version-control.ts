/** The version-control tools; behaviour lives in server/versioning. */
import { z } from "zod";
import { defineTool } from "./define-tool";
import { name, num } from "./schemas";

const versionIdParam = (what: string) => z.string().min(1).max(20).describe(`${what}: a version id such as v001.`);
const versionOut = z.object({
  version_id: z.string(), name: z.string(), description: z.string(), branch: z.string(), parent: z.string().nullable(),
  created_at: z.string(), auto: z.boolean(), summary: z.object({ objects: z.number(), changes: z.number() }),
});
const branchOut = z.object({
  name: z.string(), head: z.string().nullable(), base: z.string().nullable(), current: z.boolean(),
  versions: z.number(), unsaved_changes: z.boolean(),
  working_base: z.string().nullable().describe("The version the working state was loaded from: last saved as or restored from (null: the initial state, or that version was deleted)."),
  changed_since_base: z.boolean().describe("The working state has changes since working_base: what restore_version saves automatically first (for another branch: operations were logged on it since)."),
  created_at: z.string(),
});
const kindsOut = z.object({ added: z.array(z.unknown()), removed: z.array(z.unknown()), changed: z.array(z.unknown()) });

export const saveVersion = defineTool({
  name: "save_version",
  group: "version_control",
  access: "write",
  description: "Save the working state (all apps' scenes) as a new version on the current branch.",
  input: z.strictObject({ name: name("Version name"), description: z.string().max(5000).default("") }),
  output: versionOut,
  handler: (input, { kiln }) => kiln.versions.save(input.name, input.description),
});

export const listVersions = defineTool({
  name: "list_versions",
  group: "version_control",
  access: "read",
  description: "List saved versions, newest first, with paging.",
  input: z.strictObject({
    limit: num(z.number().int().min(1).max(500)).default(50),
    offset: num(z.number().int().min(0)).default(0),
    branch: z.string().min(1).max(100).optional().describe("Only this branch's versions."),
  }),
  output: z.object({ versions: z.array(versionOut), total: z.number(), limit: z.number(), offset: z.number() }),
  handler: (input, { kiln }) => kiln.versions.list(input.limit, input.offset, input.branch),
});

export const restoreVersion = defineTool({
  name: "restore_version",
  group: "version_control",
  access: "write",
  destructive: true,
  description: "Set the working state to a version. Unsaved work is saved automatically first; the branch head does not move.",
  input: z.strictObject({ version_id: versionIdParam("The version to restore") }),
  output: z.object({ restored: versionOut, auto_saved: versionOut.nullable(), changed_records: z.number() }),
  handler: (input, { kiln }) => kiln.versions.restore(input.version_id),
});

export const createBranch = defineTool({
  name: "create_branch",
  group: "version_control",
  access: "write",
  description: "Create a branch starting at a version (default: the current branch's head). Does not switch to it.",
  input: z.strictObject({ name: name("Branch name", 100), from_version: versionIdParam("Where the branch starts").optional() }),
  output: branchOut,
  handler: (input, { kiln }) => kiln.versions.createBranch(input.name, input.from_version),
});

export const listBranches = defineTool({
  name: "list_branches",
  group: "version_control",
  access: "read",
  description: "List branches with their head, base, version count and unsaved changes (the working state differs from the head, e.g. after restoring an older version).",
  input: z.strictObject({}),
  output: z.object({ branches: z.array(branchOut), current: z.string() }),
  handler: (_input, { kiln }) => kiln.versions.listBranches(),
});

export const switchBranch = defineTool({
  name: "switch_branch",
  group: "version_control",
  access: "write",
  idempotent: true,
  description: "Make a branch current. Each branch keeps its own working state, unsaved work included.",
  input: z.strictObject({ name: name("Branch name", 100) }),
  output: z.object({ branch: branchOut }),
  handler: (input, { kiln }) => kiln.versions.switchBranch(input.name),
});

export const deleteVersion = defineTool({
  name: "delete_version",
  group: "version_control",
  access: "write",
  // Deleting history is an owner's decision (docs/teams.md, "Roles").
  permission: "admin",
  allowDelete: true,
  destructive: true,
  description: "Delete a version: its children are re-parented to its parent, branch heads and bases on it move to its parent (listed in branches_moved), storage no version needs is reclaimed.",
  input: z.strictObject({ version_id: versionIdParam("The version to delete") }),
  output: z.object({
    deleted: z.string(), parent: z.string().nullable(), reparented: z.array(z.string()),
    branches_moved: z.array(z.object({
      name: z.string(),
      head: z.object({ from: z.string(), to: z.string().nullable() }).optional().describe("The branch's head was the deleted version."),
      base: z.object({ from: z.string(), to: z.string().nullable() }).optional().describe("The branch started from the deleted version."),
    })),
    reclaimed_objects: z.number(),
  }),
  handler: (input, { kiln }) => kiln.versions.deleteVersion(input.version_id),
});

export const diffVersions = defineTool({
  name: "diff_versions",
  group: "version_control",
  access: "read",
  description: "What changed between two versions (or \"working\" for the working state): objects, materials and scenes per app, with old and new field values.",
  input: z.strictObject({ from: z.string().min(1).max(20), to: z.string().min(1).max(20).default("working") }),
  output: z.object({
    from: z.string(), to: z.string(), total_changes: z.number(),
    apps: z.record(z.string(), z.object({ objects: kindsOut, materials: kindsOut, scenes: kindsOut, active_scene: z.unknown().optional() })),
  }),
  handler: (input, { kiln }) => kiln.versions.diff(input.from, input.to),
});
