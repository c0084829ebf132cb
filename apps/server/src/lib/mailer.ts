import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../base/private-files.ts';

export interface Letter {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The sender's name (the site's name as the owner set it); the address stays MAIL_FROM's. */
  fromName?: string;
}

/** MAIL_FROM with the sender's name replaced: «Мой сервер <no-reply@example.com>». */
export function senderOf(mailFrom: string, name: string | undefined): string | { name: string; address: string } {
  if (!name) return mailFrom;
  const address = /<([^<>]+)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom.trim();
  return { name, address };
}

export interface Mailer {
  /** Throws when the letter could not be handed over; the outbox then retries it. */
  send(letter: Letter): Promise<void>;
  readonly kind: 'smtp' | 'files';
  close(): void;
}

/**
 * SMTP when SMTP_URL is set. Otherwise each letter becomes an .eml file under DATA_DIR/mail,
 * so a local owner can still open confirmation and reset links.
 */
/** nodemailer loads with the first letter, not when the site starts (most processes never send one). */
function lazyTransport(options: object): { get: () => Promise<Transporter>; close: () => void } {
  let transport: Promise<Transporter> | undefined;
  let closed = false;
  return {
    get: () => (transport ??= import('nodemailer').then((m) => m.default.createTransport(options))),
    close() {
      if (closed) return;
      closed = true;
      void transport?.then((t) => t.close());
    },
  };
}

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>): Mailer {
  if (config.smtpUrl) {
    const transport = lazyTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
    return {
      kind: 'smtp',
      async send(letter) {
        const { fromName, ...rest } = letter;
        await (await transport.get()).sendMail({ ...rest, from: senderOf(config.mailFrom, fromName) });
      },
      close: () => transport.close(),
    };
  }
  const dir = path.join(config.dataDir, 'mail');
  const transport = lazyTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'files',
    async send(letter) {
      const { fromName, ...rest } = letter;
      const info = await (await transport.get()).sendMail({ ...rest, from: senderOf(config.mailFrom, fromName) });
      // Letters hold sign-in links: readable by the site's user only (base/private-files.ts), also
      // a mail/ folder an older version created 0755.
      ensurePrivateDir(dir, true);
      const safeTo = letter.to.replace(/[^a-zA-Z0-9@._-]/g, '_');
      await fs.writeFile(path.join(dir, `${Date.now()}-${safeTo}.eml`), info.message as Buffer, { mode: PRIVATE_FILE_MODE });
    },
    close: () => transport.close(),
  };
}
