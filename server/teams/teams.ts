/**
 * Team mode's parts for one running Kiln (docs/teams.md): the auth library's instance, the
 * credential caches, the open streams, members, tokens and the audit log, wired so that ending
 * a session, revoking a token or removing a member drops what is cached and closes what is open.
 *
 * They exist in both modes: personal mode answers every request without asking, but the CLI and
 * the tools can prepare accounts and tokens that take effect once the project runs in team mode.
 * The library is loaded on first use there, so personal mode's start-up does not pay for it.
 */
import type { KilnConfig } from "../config";
import type { Db } from "../db/client";
import { audit, openAuditLog } from "./audit";
import type { TeamAuth } from "./auth";
import { proxyMatcher } from "./client-ip";
import { Credentials } from "./credentials";
import { Members } from "./members";
import { OpenStreams } from "./streams";
import { Locks } from "./locks";
import { Presence } from "./presence";
import { loadTeamFile, type TeamFile } from "./team-file";
import { Tokens } from "./tokens";
import { oauthUrls } from "./oauth";
import type { NewLink } from "./invites";
import { invitationMail, smtpMailer, type Mailer } from "./mailer";

export class Teams {
  readonly enabled: boolean;
  readonly streams = new OpenStreams();
  readonly credentials: Credentials;
  readonly members: Members;
  readonly tokens: Tokens;
  /** Soft locks (both modes: in personal mode they tell one client session from another). */
  readonly locks: Locks;
  /** Who is here now (both modes). */
  readonly presence = new Presence();
  /** Whether an address is a trusted reverse proxy (KILN_TRUSTED_PROXIES). */
  readonly trustedProxy: (ip: string) => boolean;
  private instance?: Promise<TeamAuth>;
  private file?: TeamFile;
  /** Where invitations are mailed; set from KILN_SMTP_URL (tests may set their own). */
  mailer?: Promise<Mailer>;

  constructor(private readonly db: Db, readonly config: KilnConfig) {
    this.enabled = config.auth === "team";
    this.trustedProxy = proxyMatcher(config.trustedProxies);
    const https = config.publicUrl?.startsWith("https://") ?? false;
    this.credentials = new Credentials(db, () => this.auth(), () => this.secrets().operator, `${https ? "__Secure-" : ""}kiln.session_token`, () => oauthUrls(this.publicUrl()).resource);
    const forget = (userId: string, reason: string | null) => {
      this.credentials.forgetUser(userId);
      if (reason) this.streams.closeUser(userId, reason);
    };
    this.members = new Members(db, { auth: () => this.auth(), forget });
    this.tokens = new Tokens(db, {
      auth: () => this.auth(),
      revoked: (id) => {
        this.credentials.forgetToken(id);
        this.streams.closeToken(id);
      },
    });
    openAuditLog(db);
    this.locks = new Locks(db);
    // A session that ends (its Studio tab's event stream gone, an MCP session closed) lets go of its locks.
    this.presence.onLeave = (session, userId) => {
      void this.locks.endSession(session, userId).catch((e) => console.error(`kiln: releasing the locks of a session: ${(e as Error).message}`));
    };
    if (config.smtpUrl) this.mailer = smtpMailer(config.smtpUrl, config.mailFrom ?? `Kiln <kiln@${new URL(this.publicUrl()).hostname}>`);
    // Team mode writes .kiln/team.json at start-up, so the CLI finds the operator credential.
    if (this.enabled) this.secrets();
  }

  /** .kiln/team.json, created on first use (personal mode never writes it unless asked to). */
  private secrets(): TeamFile {
    return (this.file ??= loadTeamFile(this.config.home));
  }

  /** The better-auth instance, created on first use. */
  auth(): Promise<TeamAuth> {
    return (this.instance ??= import("./auth").then(({ createTeamAuth }) =>
      createTeamAuth({
        db: this.db, config: this.config, secret: this.config.authSecret ?? this.secrets().secret, publicUrl: this.publicUrl(),
        events: {
          signedIn: (user, ip) => audit({ action: "sign_in", actor: { id: user.id, name: user.name }, ip, details: { email: user.email } }),
          signInFailed: (email, ip, reason) => audit({ action: "sign_in_failed", actor: { id: null, name: email || "(no email)" }, ip, details: { reason } }),
          sessionEnded: (session) => {
            this.credentials.forgetSession(session.id);
            this.streams.closeSession(session.id);
          },
          passwordChanged: async (user, ip) => {
            // The library may have ended the person's other sessions: check them anew.
            this.credentials.forgetUser(user.id);
            await audit({ action: "password_changed", actor: { id: user.id, name: user.name }, target: { id: user.id, name: user.name }, ip });
          },
        },
      }),
    ));
  }

  /**
   * A client session ended for good (an MCP session closed): it leaves presence and its locks go.
   * The Studio's tabs end by closing their event stream (server/api/events.ts).
   */
  sessionEnded(actor: { userId: string | null; session: string }): void {
    this.presence.end(actor);
  }

  /** Stops the timers (locks' sweep, presence's idle check). */
  stop(): void {
    this.locks.stop();
    this.presence.stop();
  }

  /** Where people reach this Kiln, for the links Kiln prints and hands out. */
  publicUrl(): string {
    if (this.config.publicUrl) return this.config.publicUrl;
    const h = this.config.host;
    const host = /^(0\.0\.0\.0|::|\[::\])$/.test(h) ? "127.0.0.1" : h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
    return `http://${host}:${this.config.port}`;
  }

  /** An absolute URL for one of Kiln's links. */
  url(link: NewLink): string {
    return `${this.publicUrl()}${link.path}`;
  }

  /**
   * Mails an invitation when a mailer is configured and the invitation names an email; says
   * whether it did. The link works either way, so a refused mail is reported, not thrown.
   */
  async mailInvite(to: string | undefined, url: string, inviter: string): Promise<boolean> {
    if (!to || !this.mailer) return false;
    try {
      await (await this.mailer).send(invitationMail(to, url, inviter));
      return true;
    } catch (e) {
      console.error(`kiln: could not mail the invitation to ${to}: ${(e as Error).message}`);
      return false;
    }
  }

  /**
   * Start-up in team mode: loads the library (its first request should not pay for it), and when
   * nobody owns the project yet, prints a one-time link for setting up the first owner.
   */
  async start(log: (line: string) => void = (l) => console.log(l)): Promise<void> {
    await this.locks.load();
    this.presence.start();
    if (!this.enabled) return;
    await this.auth();
    const link = await this.members.setUpLink();
    if (link) log(`kiln: team mode has no owner yet. Set up the first owner (one-time link, valid 24 h): ${this.url(link)}`);
  }
}
