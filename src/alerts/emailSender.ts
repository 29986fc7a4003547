import type { ConnectionOptions } from 'node:tls';
import type { Transporter } from 'nodemailer';
import type { SmtpSettings } from '../config/environment';
import type { DeliveryOutcome } from './deliveryOutcome';
import type { EmailContent } from './formats/email';

export interface EmailSenderOptions {
  smtp: SmtpSettings;
  /**
   * Extra TLS options for the SMTP connection. Production leaves this unset (the system's trusted
   * CAs); tests pass the CA of the certificate they generated.
   */
  tls?: ConnectionOptions;
  /** Timeouts of the SMTP conversation, in milliseconds. */
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
  /**
   * Longest one send may take in all, waiting for a pooled connection included. The socket
   * timeouts above only bound silences: a server that trickles its answers, or a queue behind busy
   * connections, could otherwise keep a send going past the outbox claim, and another claim would
   * send the same alert again.
   */
  sendTimeoutMs: number;
}

/**
 * Sends alert e-mails through the SMTP server of SERVICE_SMTP_*: TLS on connect when
 * SERVICE_SMTP_SECURE is true, otherwise STARTTLS whenever the server offers it (nodemailer's
 * default), and AUTH when a user name is set. With a user name, STARTTLS is required unless
 * SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH says otherwise: a server that does not offer it (or a
 * man in the middle that strips the offer) would otherwise be sent the password in base64 over
 * plain TCP.
 */
export class EmailSender {
  private readonly transport: Transporter;
  /** Sends refuse to authenticate over a connection that is not encrypted. */
  private readonly tlsRequired: boolean;

  constructor(private readonly options: EmailSenderOptions) {
    const { smtp } = options;
    this.tlsRequired = Boolean(smtp.username) && !smtp.secure && !smtp.allowPlaintextAuth;
    // Loaded here, not at start: only a service with SMTP settings makes a sender, and nodemailer
    // costs some 5 MB of resident memory to one that sends no e-mail.
    const nodemailer = require('nodemailer') as typeof import('nodemailer');
    this.transport = nodemailer.createTransport({
      pool: true,
      maxConnections: 3,
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: this.tlsRequired,
      auth: smtp.username ? { user: smtp.username, pass: smtp.password ?? '' } : undefined,
      tls: options.tls,
      connectionTimeout: options.connectionTimeoutMs ?? 10_000,
      greetingTimeout: options.connectionTimeoutMs ?? 10_000,
      socketTimeout: options.socketTimeoutMs ?? 30_000,
    });
  }

  async send(
    to: string[],
    content: EmailContent,
    messageId: string,
    stop: AbortSignal,
  ): Promise<DeliveryOutcome> {
    const sending = this.transport.sendMail({
      from: this.options.smtp.from,
      to,
      subject: content.subject,
      text: content.text,
      html: content.html,
      // The same id on every attempt lets mail clients fold a duplicate sent after a crash.
      messageId,
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
    const stopped = new Promise<'stopped'>((resolve) => {
      if (stop.aborted) resolve('stopped');
      stop.addEventListener('abort', () => resolve('stopped'), { once: true });
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => {
      timer = setTimeout(() => resolve('timed out'), this.options.sendTimeoutMs);
    });
    try {
      const result = await Promise.race([sending, stopped, timedOut]);
      if (result === 'stopped' || result === 'timed out') {
        sending.catch(() => undefined);
        return result === 'stopped'
          ? { status: 'interrupted' }
          : { status: 'retry', error: `timed out after ${this.options.sendTimeoutMs} ms` };
      }
      return { status: 'delivered' };
    } catch (error) {
      const smtpError = error as { responseCode?: number; code?: string; message?: string; command?: string };
      const message = smtpError.message ?? String(error);
      // A refused STARTTLS, a failed handshake, or a server that does not even speak EHLO.
      if (this.tlsRequired && (smtpError.command === 'STARTTLS' || message.includes('required STARTTLS'))) {
        // Whatever the server answered, it can start TLS tomorrow: retried as any other failure.
        return {
          status: 'retry',
          error:
            `TLS is required to authenticate to the SMTP server, and it did not start: ${message} ` +
            '(SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH=true would send the password unencrypted)',
        };
      }
      // A 5xx reply (unknown mailbox, authentication refused) will be the same on the next try.
      if (smtpError.responseCode !== undefined && smtpError.responseCode >= 500) {
        return { status: 'rejected', error: message };
      }
      return { status: 'retry', error: smtpError.code ? `${smtpError.code}: ${message}` : message };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.transport.close();
  }
}
