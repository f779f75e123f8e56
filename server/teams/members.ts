/**
 * The people of a team-mode Kiln: listing, inviting, adding, removing, roles and passwords. Accounts
 * are better-auth's (its internal adapter creates users and credential accounts, its hashing
 * stores passwords); Kiln adds the rules: there is always an owner, a removed person's sessions,
 * tokens and open streams end at once, and every change is in the audit log.
 */
import type { Db } from "../db/client";
import { KilnError, notFound } from "../errors";
import type { Role } from "./actor";
import { audit } from "./audit";
import type { TeamAuth } from "./auth";
import { createLink, dropLinks, findLink, useLink, type InviteKind, type NewLink } from "./invites";

export interface Member { id: string; name: string; email: string; role: Role; created_at: string; tokens: number }

/** What the members code needs from the rest of team mode. */
export interface MemberHooks {
  auth(): Promise<TeamAuth>;
  /** A person's cached credentials and open streams must go (removed, new role, new password). */
  forget(userId: string, reason: string | null): void;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;
const normalEmail = (email: string) => email.trim().toLowerCase();

export class Members {
  constructor(private readonly db: Db, private readonly hooks: MemberHooks) {}

  async list(): Promise<Member[]> {
    const [users, keys] = await Promise.all([
      this.db.user.findMany({ orderBy: { createdAt: "asc" } }),
      this.db.apikey.groupBy({ by: ["referenceId"], _count: { _all: true } }),
    ]);
    const count = new Map(keys.map((k) => [k.referenceId, k._count._all]));
    return users.map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role as Role, created_at: u.createdAt.toISOString(), tokens: count.get(u.id) ?? 0 }));
  }

  /** A person by id or email; USER_NOT_FOUND otherwise. */
  async find(ref: string): Promise<{ id: string; name: string; email: string; role: Role }> {
    const user = await this.db.user.findFirst({ where: { OR: [{ id: ref }, { email: normalEmail(ref) }] } });
    if (!user) throw notFound("USER_NOT_FOUND", `No member has the id or email "${ref}".`);
    return { id: user.id, name: user.name, email: user.email, role: user.role as Role };
  }

  async owners(): Promise<number> {
    return this.db.user.count({ where: { role: "owner" } });
  }

  /** An invitation link for a new member with this role (name and email may be filled in later). */
  async invite(input: { role: Role; email?: string; name?: string; createdBy: string | null }): Promise<NewLink> {
    if (input.email) await this.assertFreeEmail(input.email);
    const link = await createLink(this.db, "invite", { ...input, email: input.email && normalEmail(input.email) });
    await audit({ action: "member_invited", target: { name: input.email ?? input.name ?? "(open invitation)" }, details: { role: input.role, invite: link.id, expires_at: link.expiresAt.toISOString() } });
    return link;
  }

  /** The first owner's set-up link, when there is no owner yet (a new one replaces the last). */
  async setUpLink(): Promise<NewLink | null> {
    if ((await this.owners()) > 0) return null;
    await dropLinks(this.db, "setup");
    return createLink(this.db, "setup", { role: "owner" });
  }

  /** Creates an account that can sign in at once; `viaLink`: the person did it with a one-time link. */
  async create(input: { email: string; name: string; role: Role; password: string }, how: "member_added" | "owner_set_up" = "member_added", viaLink = false) {
    const email = normalEmail(input.email);
    if (!EMAIL.test(email)) throw new KilnError("INVALID_PARAMS", `"${input.email}" is not an email address.`, 400, { fields: [{ path: "email", message: "an email address" }] });
    await this.assertFreeEmail(email);
    const ctx = await (await this.hooks.auth()).$context;
    this.checkPassword(input.password, ctx.password.config);
    const hash = await ctx.password.hash(input.password);
    const user = await ctx.internalAdapter.createUser({ email, name: input.name.trim(), emailVerified: false, role: input.role } as never, { method: "email-password" } as never);
    await ctx.internalAdapter.linkAccount({ userId: user.id, providerId: "credential", accountId: user.id, password: hash });
    await audit({
      action: how, target: { id: user.id, name: `${user.name} <${email}>` }, details: { role: input.role, ...(viaLink ? { via: "link" } : {}) },
      ...(viaLink ? { actor: { id: user.id, name: user.name } } : {}),
    });
    return { id: user.id, name: user.name, email, role: input.role };
  }

  /** Uses a set-up or invitation link: creates the account it offers. */
  async accept(kind: Exclude<InviteKind, "reset">, secret: string, input: { email: string; name: string; password: string }) {
    const invite = await findLink(this.db, kind, secret);
    if (invite.email && normalEmail(input.email) !== invite.email)
      throw new KilnError("INVALID_PARAMS", `This invitation is for ${invite.email}.`, 400, { fields: [{ path: "email", message: `must be ${invite.email}` }] });
    // Checked before the link is used up, so a taken email or short password leaves it usable.
    await this.assertFreeEmail(input.email);
    this.checkPassword(input.password, (await (await this.hooks.auth()).$context).password.config);
    await useLink(this.db, invite);
    return this.create({ ...input, role: invite.role }, kind === "setup" ? "owner_set_up" : "member_added", true);
  }

  /** Uses a password-reset link: sets the new password and ends the person's sessions. */
  async completeReset(secret: string, password: string) {
    const invite = await findLink(this.db, "reset", secret);
    const user = await this.find(invite.userId ?? "");
    await this.setPassword(user, password, () => useLink(this.db, invite), true);
    return user;
  }

  /** Sets a password now (when given), or returns a one-time link for the person to choose one. */
  async resetPassword(ref: string, password: string | undefined, createdBy: string | null): Promise<{ link: NewLink | null; user: Member["id"] }> {
    const user = await this.find(ref);
    if (password !== undefined) {
      await this.setPassword(user, password);
      return { link: null, user: user.id };
    }
    await dropLinks(this.db, "reset", user.id);
    const link = await createLink(this.db, "reset", { role: user.role, userId: user.id, email: user.email, createdBy });
    await audit({ action: "password_reset", target: { id: user.id, name: user.name }, details: { link: link.id } });
    return { link, user: user.id };
  }

  async setRole(ref: string, role: Role) {
    const user = await this.find(ref);
    if (user.role === role) return { ...user, previous: role };
    if (user.role === "owner") await this.assertNotLastOwner(user.id, "take the owner role from");
    await this.db.user.update({ where: { id: user.id }, data: { role } });
    this.hooks.forget(user.id, null);
    await audit({ action: "role_changed", target: { id: user.id, name: user.name }, details: { from: user.role, to: role } });
    return { ...user, role, previous: user.role };
  }

  /** Removes a person: their sessions, tokens and open streams end now. */
  async remove(ref: string) {
    const user = await this.find(ref);
    if (user.role === "owner") await this.assertNotLastOwner(user.id, "remove");
    const ctx = await (await this.hooks.auth()).$context;
    await this.db.apikey.deleteMany({ where: { referenceId: user.id } });
    // Sessions, accounts, then the user: the library's own order, with its session hooks.
    await ctx.internalAdapter.deleteUser(user.id);
    await dropLinks(this.db, "reset", user.id);
    this.hooks.forget(user.id, "the member was removed");
    await audit({ action: "member_removed", target: { id: user.id, name: `${user.name} <${user.email}>` }, details: { role: user.role } });
    return user;
  }

  private async setPassword(user: { id: string; name: string }, password: string, beforeWrite?: () => Promise<void>, viaLink = false) {
    const ctx = await (await this.hooks.auth()).$context;
    this.checkPassword(password, ctx.password.config);
    await beforeWrite?.();
    await ctx.internalAdapter.updatePassword(user.id, await ctx.password.hash(password));
    await ctx.internalAdapter.deleteUserSessions(user.id);
    this.hooks.forget(user.id, "the password was reset");
    await audit({
      action: "password_changed", target: { id: user.id, name: user.name }, details: { sessions_ended: true, ...(viaLink ? { via: "link" } : {}) },
      ...(viaLink ? { actor: { id: user.id, name: user.name } } : {}),
    });
  }

  private checkPassword(password: string, limits: { minPasswordLength: number; maxPasswordLength: number }) {
    if (password.length < limits.minPasswordLength || password.length > limits.maxPasswordLength)
      throw new KilnError("INVALID_PARAMS", `A password has ${limits.minPasswordLength} to ${limits.maxPasswordLength} characters.`, 400, {
        fields: [{ path: "password", message: `${limits.minPasswordLength} to ${limits.maxPasswordLength} characters` }],
      });
  }

  private async assertFreeEmail(email: string) {
    if (await this.db.user.findUnique({ where: { email: normalEmail(email) }, select: { id: true } }))
      throw new KilnError("USER_EXISTS", `A member with the email ${normalEmail(email)} exists already.`, 409);
  }

  private async assertNotLastOwner(userId: string, what: string) {
    if ((await this.db.user.count({ where: { role: "owner", id: { not: userId } } })) === 0)
      throw new KilnError("LAST_OWNER", `Cannot ${what} the last owner: make someone else an owner first.`, 409);
  }
}
