/**
 * whoami and the personal access token tools (docs/teams.md, "Tokens"). Anyone may manage their
 * own tokens (a viewer's AI client needs a read token too), never with a scope above their role;
 * another person's tokens are an owner's business. The operator (`kiln token` on the service's
 * machine) acts for no one, so it names whose token it creates.
 */
import { z } from "zod";
import { KilnError } from "../errors";
import { currentCaller, PERMISSIONS, ROLES, CLIENT_KINDS, type Actor } from "../teams/actor";
import { requirePermission } from "../teams/permissions";
import { parseExpiry } from "../teams/tokens";
import type { Kiln } from "../runtime";
import { defineTool } from "./define-tool";
import { bool, name as displayName } from "./schemas";

const tokenOut = z.object({
  id: z.string(), name: z.string(), scope: z.enum(PERMISSIONS), start: z.string().nullable().describe("The first characters of the secret, to recognise it."),
  user: z.object({ id: z.string(), name: z.string() }), created_at: z.string(), expires_at: z.string().nullable(), last_used_at: z.string().nullable(),
});

const userRef = () => z.string().min(1).max(254).describe("A member's id or email.");

/** The person a token tool acts on: `ref` when given (an owner's right unless it is the caller), else the caller. */
async function subject(kiln: Kiln, actor: Actor, ref: string | undefined, what: string) {
  if (ref === undefined) {
    if (!actor.userId)
      throw new KilnError("INVALID_PARAMS", `${actor.name} is not a member: say whose tokens with "user" (an id or email).`, 400, { fields: [{ path: "user", message: "required for the operator" }] });
    return kiln.teams.members.find(actor.userId);
  }
  const user = await kiln.teams.members.find(ref);
  if (user.id !== actor.userId) requirePermission(`${what} of another member`, "admin");
  return user;
}

export const whoami = defineTool({
  name: "whoami",
  group: "teams",
  access: "read",
  description: "Who this call is made as: the mode (personal or team), the person and their role, the client, and the token used (if any).",
  input: z.strictObject({}),
  output: z.object({
    mode: z.enum(["personal", "team"]),
    user: z.object({ id: z.string().nullable(), name: z.string(), email: z.string().nullable(), role: z.enum(ROLES) }),
    client: z.enum(CLIENT_KINDS),
    token: z.object({ id: z.string(), name: z.string(), scope: z.enum(PERMISSIONS) }).nullable(),
  }),
  handler: async (_input, { kiln }) => {
    const { actor } = currentCaller();
    const email = actor.userId ? (await kiln.db.user.findUnique({ where: { id: actor.userId }, select: { email: true } }))?.email ?? null : null;
    return {
      mode: kiln.teams.enabled ? "team" as const : "personal" as const,
      user: { id: actor.userId, name: actor.name, email, role: actor.role }, client: actor.client, token: actor.token ?? null,
    };
  },
});

export const createToken = defineTool({
  name: "create_token",
  group: "teams",
  access: "write",
  permission: "read",
  description:
    "Create a personal access token for an AI client, the CLI, CI or a live app: send it as 'Authorization: Bearer <token>'. " +
    "The secret is in this answer only (only its hash is stored). Its scope (read, write or admin) cannot exceed the holder's role.",
  input: z.strictObject({
    name: displayName("Token name").max(100).describe('What the token is for ("claude on laptop").'),
    scope: z.enum(PERMISSIONS).default("read").describe("read: reading tools; write: every tool an editor has; admin: an owner's tools too."),
    expires: z.string().max(20).default("90d").describe("Lifetime: 30d, 12h, 8w, 6m, 1y (at most 10y), or never."),
    user: userRef().optional().describe("Whose token (an owner may create one for someone else); default: the caller."),
  }),
  output: tokenOut.extend({ token: z.string().describe("The secret. Shown once: copy it now.") }),
  handler: async (input, { kiln }) => {
    const { actor } = currentCaller();
    const user = await subject(kiln, actor, input.user, "Creating a token");
    return kiln.teams.tokens.create(user, { name: input.name, scope: input.scope, expiresIn: parseExpiry(input.expires) });
  },
});

export const listTokens = defineTool({
  name: "list_tokens",
  group: "teams",
  access: "read",
  description: "Personal access tokens with their scope, expiry and last use (never the secret): the caller's, another member's (owner), or everyone's with all (owner).",
  input: z.strictObject({
    user: userRef().optional().describe("Whose tokens (an owner may list anyone's); default: the caller's."),
    all: bool().default(false).describe("Every member's tokens (owner)."),
  }),
  output: z.object({ tokens: z.array(tokenOut) }),
  handler: async (input, { kiln }) => {
    const { actor } = currentCaller();
    if (input.all) {
      requirePermission("Listing every member's tokens", "admin");
      return { tokens: await kiln.teams.tokens.list(null) };
    }
    const user = await subject(kiln, actor, input.user, "Listing the tokens");
    return { tokens: await kiln.teams.tokens.list(user.id) };
  },
});

export const revokeToken = defineTool({
  name: "revoke_token",
  group: "teams",
  access: "write",
  permission: "read",
  destructive: true,
  description: "Revoke a personal access token at once: its next request is refused and its open /events and /bridge connections close. Another member's token needs the owner role.",
  input: z.strictObject({ id: z.string().min(1).max(100).describe("The token's id (list_tokens).") }),
  output: z.object({ id: z.string(), name: z.string(), revoked: z.literal(true) }),
  handler: async (input, { kiln }) => {
    const { actor } = currentCaller();
    const { userId } = await kiln.teams.tokens.holder(input.id);
    if (userId !== actor.userId) requirePermission("Revoking another member's token", "admin");
    return kiln.teams.tokens.revoke(input.id);
  },
});
