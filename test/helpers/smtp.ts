// A tiny SMTP server for tests: speaks just enough of the protocol for nodemailer (greeting, EHLO without STARTTLS,
// MAIL, RCPT, DATA, QUIT) and records every message it accepts, or refuses recipients when told to.
import net from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent (headers and MIME body), dot-stuffing undone. */
  data: string;
}

export interface SmtpServer {
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  messages: ReceivedMail[];
  /** SMTP sessions opened, whether or not a message was accepted over them. */
  sessions: number;
  /** Answer `RCPT TO` with 550 (a server that knows no such mailbox) from now on. */
  refuseRecipients(refuse: boolean): void;
  close(): Promise<void>;
}

const address = (line: string) => /<([^>]*)>/.exec(line)?.[1] ?? '';

export async function startSmtpServer(): Promise<SmtpServer> {
  const messages: ReceivedMail[] = [];
  const sockets = new Set<net.Socket>();
  let refuse = false;
  let sessions = 0;
  const server = net.createServer((socket) => {
    sessions += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = '';
    let data: string | undefined;
    let envelope: { from: string; to: string[] } = { from: '', to: [] };
    const say = (text: string) => socket.write(`${text}\r\n`);
    const command = (line: string) => {
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO') return say('250-smtp.test\r\n250 8BITMIME');
      if (verb === 'HELO' || verb === 'NOOP') return say('250 ok');
      if (verb === 'RSET') return ((envelope = { from: '', to: [] }), say('250 ok'));
      if (verb === 'MAIL') return ((envelope = { from: address(line), to: [] }), say('250 ok'));
      if (verb === 'RCPT') {
        if (refuse) return say('550 5.1.1 no such mailbox here');
        envelope.to.push(address(line));
        return say('250 ok');
      }
      if (verb === 'DATA') return ((data = ''), say('354 end with <CRLF>.<CRLF>'));
      if (verb === 'QUIT') return (say('221 bye'), socket.end());
      return say('502 not implemented');
    };
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (data !== undefined) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          data += buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          messages.push({ ...envelope, data: data.replace(/^\.\./gm, '.') });
          data = undefined;
          say('250 accepted');
          continue;
        }
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        command(line);
      }
    });
    say('220 smtp.test ESMTP ready');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    get sessions() {
      return sessions;
    },
    refuseRecipients(value) {
      refuse = value;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A message's text with quoted-printable soft line breaks and escapes undone, so that a long link reads whole. */
export function readableBody(data: string): string {
  return data
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
