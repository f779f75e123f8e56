/**
 * The one permission check every tool call passes (server/api/trpc.ts calls `authorize` in each
 * tool's procedure, which /tools, tRPC, MCP, recipe steps and the CLI all go through): the
 * tool's declared permission (server/tools/define-tool.ts) against the caller's role, capped by
 * the scope of the token the call used. A refusal is 403 FORBIDDEN naming the role needed.
 */
import { KilnError } from "../errors";
import { toolPermission, type ToolDefinition } from "../tools/define-tool";
import { actorAllows, currentCaller, roleAllows, roleFor, type Actor, type Permission } from "./actor";

const article = (word: string) => (/^[aeiou]/.test(word) ? "an" : "a");

/** The 403 for `actor` attempting something that needs `permission` (`what` names it). */
export function forbidden(what: string, permission: Permission, actor: Actor): KilnError {
  const role = roleFor(permission);
  const details: Record<string, unknown> = { required_role: role, required_permission: permission, role: actor.role };
  if (!roleAllows(actor.role, permission))
    return new KilnError("FORBIDDEN", `${what} needs the ${role} role; ${actor.name} is ${article(actor.role)} ${actor.role}.`, 403, details);
  const token = actor.token!;
  return new KilnError(
    "FORBIDDEN",
    `${what} needs the ${role} role and a token with the ${permission} scope; the token "${token.name}" has the ${token.scope} scope.`,
    403, { ...details, token_scope: token.scope },
  );
}

/** Throws FORBIDDEN unless the current caller may call `tool`. */
export function authorize(tool: ToolDefinition): void {
  const { actor } = currentCaller();
  const permission = toolPermission(tool);
  if (!actorAllows(actor, permission)) throw forbidden(tool.name, permission, actor);
}

/** Throws FORBIDDEN unless the current caller has `permission` (checks inside a tool: "someone else's token"). */
export function requirePermission(what: string, permission: Permission): Actor {
  const { actor } = currentCaller();
  if (!actorAllows(actor, permission)) throw forbidden(what, permission, actor);
  return actor;
}
