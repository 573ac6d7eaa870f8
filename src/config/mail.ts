// Settings of outgoing email (docs/api.md "Members and invites"): the SMTP server invites are sent through, and the
// sender they are sent as. Without a server Herald sends nothing and every invite is a link to pass on.
import { email, url } from './parsers.ts';
import { optionalSetting, type ReadSetting } from './setting.ts';

export const MAIL_SETTINGS = {
  smtpUrl: optionalSetting({
    name: 'HERALD_SMTP_URL',
    parse: url(['smtp:', 'smtps:']),
    description:
      'SMTP server invites are emailed through: `smtp://user:pass@host:587` (upgraded with STARTTLS when the server offers it) or `smtps://…:465` (TLS from the start); user and password percent-encoded. A secret: Herald never logs it. Unset: Herald sends no email and an invite is a link to pass on.',
  }),
  from: optionalSetting({
    name: 'HERALD_SMTP_FROM',
    shownDefault: '(`herald@` and the host of HERALD_PUBLIC_URL)',
    parse: email,
    description:
      "Sender address of Herald's emails (shown as Herald; replies go to the inviter). Set it to an address the SMTP server may send as.",
  }),
};

/** Outgoing email: off (no server) unless `smtpUrl` is set. */
export interface MailConfig {
  smtpUrl: string | undefined;
  from: string;
}

export function mailConfig(read: ReadSetting, publicUrl: string): MailConfig {
  return {
    smtpUrl: read(MAIL_SETTINGS.smtpUrl),
    from: read(MAIL_SETTINGS.from) ?? `herald@${new URL(publicUrl).hostname}`,
  };
}
