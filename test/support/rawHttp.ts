import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * A raw HTTP/1.1 connection, written and read byte for byte: what a proxy keeps open between
 * requests, or a client that sends its request slowly.
 */
export class RawConnection {
  private received = '';
  private waiters = new Set<() => void>();
  closed = false;
  private readonly socket: Socket;

  constructor(port: number, host = '127.0.0.1') {
    this.socket = connect(port, host);
    this.socket.setEncoding('utf8');
    this.socket.on('data', (text: string) => {
      this.received += text;
      this.wake();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on('error', () => undefined);
  }

  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  send(text: string): void {
    this.socket.write(text);
  }

  /** The next complete response (headers and a Content-Length body), or null once the server closed. */
  async response(): Promise<RawResponse | null> {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = this.received.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => {
            const colon = line.indexOf(':');
            return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
          }),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (this.received.length >= end + 4 + length) {
          const body = this.received.slice(end + 4, end + 4 + length);
          this.received = this.received.slice(end + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) return null;
      await new Promise<void>((resolve) => this.waiters.add(resolve));
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }
}
