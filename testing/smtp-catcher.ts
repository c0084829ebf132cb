import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtLetter {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The From header as sent («Мой сервер <no-reply@…>»). */
  from: string;
}

/** A real SMTP server on a free local port that keeps every letter it receives. */
export class SmtpCatcher {
  readonly letters: CaughtLetter[] = [];
  private waiters: (() => void)[] = [];
  private server: SMTPServer;
  port = 0;
  /** When set, every letter is refused with a temporary error (to test retries). */
  refuse = false;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (this.refuse) {
            const err = Object.assign(new Error('Temporary failure'), { responseCode: 451 });
            callback(err);
            return;
          }
          simpleParser(Buffer.concat(chunks))
            .then((mail) => {
              const to = Array.isArray(mail.to) ? mail.to.map((a) => a.text).join(', ') : (mail.to?.text ?? '');
              this.letters.push({
                to,
                subject: mail.subject ?? '',
                text: mail.text ?? '',
                html: typeof mail.html === 'string' ? mail.html : '',
                from: mail.from?.text ?? '',
              });
              this.waiters.splice(0).forEach((w) => w());
              callback();
            })
            .catch((err: Error) => callback(err));
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The newest letter to this address, waiting for it up to timeoutMs. */
  async waitFor(to: string, predicate: (l: CaughtLetter) => boolean = () => true, timeoutMs = 10_000): Promise<CaughtLetter> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = [...this.letters].reverse().find((l) => l.to.toLowerCase().includes(to.toLowerCase()) && predicate(l));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no letter to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The first link in a letter's text that contains the given fragment. */
export function linkIn(letter: CaughtLetter, fragment: string): string {
  const link = letter.text.match(/https?:\/\/\S+/g)?.find((l) => l.includes(fragment));
  if (!link) throw new Error(`no link with ${fragment} in letter "${letter.subject}"`);
  return link;
}
