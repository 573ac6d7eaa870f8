// The invite email (docs/api.md "Members and invites"): who invites whom to which workspace, with which role, the
// link and its expiry, in plain text and simple HTML. Sent once, while the invite is made; what became of it is
// part of the invite's answer, and a failure is reported there rather than failing the invite.
import { escapeHtml } from '../../lib/escape-html.ts';
import type { MailMessage, Mailer } from '../../lib/mailer.ts';

export const INVITE_EMAIL_STATUSES = ['sent', 'failed', 'not_configured'] as const;

export interface InviteEmailDelivery {
  status: (typeof INVITE_EMAIL_STATUSES)[number];
  /** Why a send failed, in a few words (never a credential); null otherwise. */
  error: string | null;
}

export interface InviteEmailFacts {
  to: string;
  /** The member who invites (absent only if they left the workspace while inviting). */
  inviter: { email: string; name: string | null } | undefined;
  workspaceName: string;
  role: string;
  url: string;
  expiresAt: Date;
}

/** `2026-11-27 10:00 UTC`: a date every reader can place, whatever their time zone. */
const utc = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** One line each: a header must not carry a line break, and a workspace name could hold one. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

export function inviteEmail(facts: InviteEmailFacts): MailMessage {
  const by = facts.inviter;
  const inviter = !by ? 'A member' : by.name ? `${oneLine(by.name)} (${by.email})` : by.email;
  const workspace = oneLine(facts.workspaceName);
  const article = /^[aeiou]/i.test(facts.role) ? 'an' : 'a';
  const invited = `${inviter} invited you to join the workspace "${workspace}" on Herald as ${article} ${facts.role}.`;
  const open = `Open this link to accept. It works once, until ${utc(facts.expiresAt)}:`;
  const ignore = 'If you did not expect this invitation, ignore this email: nothing happens unless the link is opened.';
  return {
    to: facts.to,
    ...(by ? { replyTo: by.email } : {}),
    subject: `Invitation to join ${workspace} on Herald`,
    text: `${invited}\n\n${open}\n${facts.url}\n\n${ignore}\n`,
    html: [
      `<p>${escapeHtml(invited)}</p>`,
      `<p>${escapeHtml(open)}<br><a href="${escapeHtml(facts.url)}">${escapeHtml(facts.url)}</a></p>`,
      `<p>${escapeHtml(ignore)}</p>`,
    ].join('\n'),
  };
}

/**
 * Sends the invite email. A failure is logged through `warn` (with the invite's id, never its link) and answered,
 * not thrown: the link in the answer still works and the inviter can pass it on.
 */
export async function sendInviteEmail(
  mailer: Mailer,
  facts: InviteEmailFacts,
  warn: (fields: Record<string, unknown>, message: string) => void,
  inviteId: string,
): Promise<InviteEmailDelivery> {
  const outcome = await mailer.send(inviteEmail(facts));
  if (outcome.sent) return { status: 'sent', error: null };
  warn({ invite_id: inviteId, error: outcome.reason }, 'invite email not sent');
  return { status: 'failed', error: outcome.reason };
}
