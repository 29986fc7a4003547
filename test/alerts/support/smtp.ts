import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestCertificate {
  key: string;
  cert: string;
}

/**
 * A fresh self-signed certificate for localhost and 127.0.0.1, valid for a day (smtp-server's
 * built-in one has expired). openssl is part of the base system here.
 */
export function generateCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedMail {
  mail: ParsedMail;
  /** The SMTP envelope's recipients. */
  rcptTo: string[];
  /** The connection was encrypted when the message arrived (TLS on connect or STARTTLS). */
  secure: boolean;
  /** The user name the client authenticated as. */
  user: string | undefined;
}

/** An AUTH the server was sent, and whether the connection was encrypted when it came. */
export interface Authentication {
  username: string | null | undefined;
  password: string | null | undefined;
  secure: boolean;
}

/**
 * A real SMTP server on a loopback port that requires AUTH (PLAIN or LOGIN, only over TLS unless
 * it offers no STARTTLS) and keeps every message it receives, parsed back with mailparser.
 */
export class TestSmtpServer {
  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
    readonly received: ReceivedMail[],
    /** Every AUTH that reached the server, accepted or not. */
    readonly authentications: Authentication[],
  ) {}

  static async start(options: {
    certificate: TestCertificate;
    /** true: TLS on connect; false: plain, with STARTTLS offered. */
    secure: boolean;
    user: string;
    password: string;
    /** Take the message in, then never answer: a server stuck after DATA. */
    stallAfterData?: boolean;
    /**
     * false: a plain server that neither offers nor accepts STARTTLS, and takes AUTH over the plain
     * connection (as some relays do). Default true.
     */
    startTls?: boolean;
  }): Promise<TestSmtpServer> {
    const received: ReceivedMail[] = [];
    const authentications: Authentication[] = [];
    const plainOnly = options.startTls === false;
    const server = new SMTPServer({
      secure: options.secure,
      key: options.certificate.key,
      cert: options.certificate.cert,
      authMethods: ['PLAIN', 'LOGIN'],
      ...(plainOnly && { disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
      logger: false,
      // Connections still open at close (a stalled one) are cut at once rather than after 30 s.
      closeTimeout: 100,
      onAuth(auth, session, callback) {
        authentications.push({ username: auth.username, password: auth.password, secure: session.secure });
        if (auth.username === options.user && auth.password === options.password) {
          callback(null, { user: auth.username });
        } else {
          callback(new Error('Invalid username or password'));
        }
      },
      onData(stream, session, callback) {
        if (options.stallAfterData) {
          stream.resume();
          return;
        }
        simpleParser(stream).then(
          (mail) => {
            received.push({
              mail,
              rcptTo: session.envelope.rcptTo.map((address) => address.address),
              secure: session.secure,
              user: session.user,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    // A client that refuses the certificate drops the connection: an error event, expected here.
    server.on('error', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    return new TestSmtpServer(server, port, received, authentications);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
