// Sends one email through an SMTP server named by a URL (`smtp://user:pass@host:587`, `smtps://…`): a connection per
// message, with deadlines, and every failure answered as a short reason that never carries the server's password.
import { createRequire } from 'node:module';
import type { createTransport } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { redactSecrets } from './logger.ts';

export interface MailMessage {
  to: string;
  /** Where a reply goes (the person the message is from), when not to the sender address. */
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
}

/** What became of a message: handed to the server, or not, with why in a few words. */
export type MailOutcome = { sent: true } | { sent: false; reason: string };

export interface Mailer {
  send(message: MailMessage): Promise<MailOutcome>;
}

/**
 * Each of connecting, the server's greeting and any silence while talking gets this long: a message is sent while
 * a request waits for it, so a server that is down or unreachable costs that request seconds, not minutes.
 */
const TIMEOUT_MS = 10_000;
/** A reason is for a person to read in an answer or a log line, not a transcript of the session. */
const REASON_MAX = 200;

/** The password in an SMTP URL (percent-decoded), so that logs can be kept free of it; '' when it has none. */
export function smtpPassword(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

function reasonOf(error: unknown, password: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n', 1)[0] ?? '').trim() || 'the SMTP server refused the message';
  const clipped = line.length > REASON_MAX ? `${line.slice(0, REASON_MAX - 1)}…` : line;
  return redactSecrets(clipped, password ? [password] : []);
}

export function createSmtpMailer(options: { url: string; from: string; fromName: string }): Mailer {
  const url = new URL(options.url);
  const password = smtpPassword(options.url);
  const transportOptions: SMTPTransport.Options = {
    // An IPv6 host is written in brackets in a URL and without them on a socket.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    ...(url.port ? { port: Number(url.port) } : {}),
    secure: url.protocol === 'smtps:',
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: password } } : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  };
  // Loaded here, not at start: only a deployment with an SMTP server pays for the client (docs/decisions.md
  // "Start-up loads what serving needs").
  const nodemailer = createRequire(import.meta.url)('nodemailer') as { createTransport: typeof createTransport };
  const transport = nodemailer.createTransport(transportOptions);
  return {
    async send(message) {
      try {
        await transport.sendMail({
          from: { name: options.fromName, address: options.from },
          to: message.to,
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
        return { sent: true };
      } catch (error) {
        return { sent: false, reason: reasonOf(error, password) };
      }
    },
  };
}
