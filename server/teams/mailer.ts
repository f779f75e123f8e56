/**
 * Mail is optional (docs/teams.md, "Inviting"): invitations are one-time links an owner can copy,
 * and only when KILN_SMTP_URL is set does Kiln also mail them, through this small port. The
 * SMTP adapter is nodemailer's; tests and other transports implement `Mailer` themselves.
 */
export interface Mail { to: string; subject: string; text: string }

/** Sends one message; throws when the server refuses it. */
export interface Mailer { send(mail: Mail): Promise<void> }

/** An SMTP mailer for `smtp://user:pass@host:port` or `smtps://...`, sending as `from`. */
export async function smtpMailer(url: string, from: string): Promise<Mailer> {
  const { createTransport } = await import("nodemailer");
  const transport = createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

/** The invitation's text. */
export function invitationMail(to: string, url: string, inviter: string): Mail {
  return {
    to,
    subject: "You are invited to Kiln",
    text: `${inviter} invited you to their Kiln project.\n\nOpen this link to choose your password and sign in (it works once, for 7 days):\n${url}\n`,
  };
}
