/**
 * The owner's tools for the team (docs/teams.md): members, invitations, roles, passwords and the
 * audit log. Each declares `admin`, so only owners (with an admin-scoped token, when a token is
 * used) reach them; the rules (there is always an owner, a removed member's access ends at once)
 * live in server/teams/members.ts.
 */
import { z } from "zod";
import { currentCaller, ROLES } from "../teams/actor";
import { AUDIT_ACTIONS, readAuditLog } from "../teams/audit";
import { defineTool } from "./define-tool";
import { name as displayName, num } from "./schemas";

const memberOut = z.object({ id: z.string(), name: z.string(), email: z.string(), role: z.enum(ROLES) });
const linkOut = z.object({
  url: z.string().describe("The one-time link to hand over (KILN_PUBLIC_URL or the service's address)."),
  path: z.string().describe("The same link's path on this Kiln."),
  expires_at: z.string(),
});
const userRef = () => z.string().min(1).max(254).describe("A member's id or email.");
const email = () => z.string().trim().min(3).max(254).regex(/^[^\s@]+@[^\s@]+$/, "an email address");

export const listUsers = defineTool({
  name: "list_users",
  group: "teams",
  access: "read",
  permission: "admin",
  description: "The team's members with their role and how many personal access tokens each holds.",
  input: z.strictObject({}),
  output: z.object({ users: z.array(memberOut.extend({ created_at: z.string(), tokens: z.number() })) }),
  handler: async (_input, { kiln }) => ({ users: await kiln.teams.members.list() }),
});

export const inviteUser = defineTool({
  name: "invite_user",
  group: "teams",
  access: "write",
  permission: "admin",
  description: "A one-time invitation link (valid 7 days) for a new member with this role: the invitee opens it, chooses a password and is signed in. No mail server needed.",
  input: z.strictObject({
    role: z.enum(ROLES).describe("viewer: reads; editor: every tool; owner: also members, tokens, deleting versions, the audit log."),
    email: email().optional().describe("The invitee's email; when given, only this email can accept."),
    name: displayName("Name").max(100).optional().describe("The invitee's name, filled in on the invitation page."),
  }),
  output: linkOut.extend({ role: z.enum(ROLES), email: z.string().nullable(), mailed: z.boolean() }),
  handler: async (input, { kiln }) => {
    const { actor } = currentCaller();
    const link = await kiln.teams.members.invite({ ...input, createdBy: actor.userId });
    const url = kiln.teams.url(link);
    const mailed = await kiln.teams.mailInvite(input.email, url, actor.name);
    return { url, path: link.path, expires_at: link.expiresAt.toISOString(), role: input.role, email: input.email?.toLowerCase() ?? null, mailed };
  },
});

export const addUser = defineTool({
  name: "add_user",
  group: "teams",
  access: "write",
  permission: "admin",
  description: "Create a member who can sign in at once with this password (for scripts and the CLI; invite_user lets the person choose their own).",
  input: z.strictObject({ email: email(), name: displayName("Name").max(100), role: z.enum(ROLES), password: z.string().max(1000) }),
  output: z.object({ user: memberOut }),
  handler: async (input, { kiln }) => ({ user: await kiln.teams.members.create(input) }),
});

export const removeUser = defineTool({
  name: "remove_user",
  group: "teams",
  access: "write",
  permission: "admin",
  destructive: true,
  description: "Remove a member: their sessions and tokens end at once and their open streams close. The last owner cannot be removed.",
  input: z.strictObject({ user: userRef() }),
  output: z.object({ removed: memberOut }),
  handler: async (input, { kiln }) => ({ removed: await kiln.teams.members.remove(input.user) }),
});

export const setUserRole = defineTool({
  name: "set_user_role",
  group: "teams",
  access: "write",
  permission: "admin",
  idempotent: true,
  description: "Give a member another role (viewer, editor, owner); it applies to their next call. The last owner keeps the owner role.",
  input: z.strictObject({ user: userRef(), role: z.enum(ROLES) }),
  output: z.object({ user: memberOut, previous_role: z.enum(ROLES) }),
  handler: async (input, { kiln }) => {
    const { previous, ...user } = await kiln.teams.members.setRole(input.user, input.role);
    return { user, previous_role: previous };
  },
});

export const resetPassword = defineTool({
  name: "reset_password",
  group: "teams",
  access: "write",
  permission: "admin",
  description: "Reset a member's password: with password, set it now; without, answer a one-time link (valid 24 h) where they choose one. Their sessions end either way once it is set.",
  input: z.strictObject({ user: userRef(), password: z.string().max(1000).optional() }),
  output: z.object({ user: z.string(), password_set: z.boolean(), link: linkOut.nullable() }),
  handler: async (input, { kiln }) => {
    const { actor } = currentCaller();
    const { link, user } = await kiln.teams.members.resetPassword(input.user, input.password, actor.userId);
    return { user, password_set: !link, link: link ? { url: kiln.teams.url(link), path: link.path, expires_at: link.expiresAt.toISOString() } : null };
  },
});

export const getAuditLog = defineTool({
  name: "get_audit_log",
  group: "teams",
  access: "read",
  permission: "admin",
  description: "The audit log, newest first: sign-ins and failed sign-ins, tokens created and revoked, members added and removed, roles changed, passwords reset, locks broken.",
  input: z.strictObject({
    limit: num(z.number().int().min(1).max(500)).default(50),
    offset: num(z.number().int().min(0)).default(0),
    action: z.enum(AUDIT_ACTIONS).optional().describe("Only this kind of event."),
    user: z.string().min(1).max(100).optional().describe("Only events by or about this member (id)."),
  }),
  output: z.object({
    entries: z.array(z.object({
      id: z.number(), at: z.string(), action: z.string(), actor: z.object({ id: z.string().nullable(), name: z.string() }),
      target: z.object({ id: z.string().nullable(), name: z.string() }).nullable(), ip: z.string().nullable(), details: z.record(z.string(), z.unknown()),
    })),
    total: z.number(), limit: z.number(), offset: z.number(),
  }),
  handler: async (input, { kiln }) => ({ ...(await readAuditLog(kiln.db, input)), limit: input.limit, offset: input.offset }),
});
