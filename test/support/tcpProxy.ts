import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A loopback TCP proxy that a test can cut and restore, to play a database restart: `cut()` drops
 * every connection and refuses new ones, `restore()` accepts again. `hold()` stops passing bytes on
 * the connections open at that moment without closing them (a peer that no longer answers), and
 * `release()` passes them again. `delayToClientMs` holds every byte from the target that long
 * before passing it on, in order (a database whose answers and notifications come late).
 */
/** Ports the proxy listens on: below Linux's ephemeral range, above the well-known ones. */
const STABLE_PORTS = { from: 20_000, to: 32_000 };

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    private readonly options: { delayToClientMs?: number } = {},
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => {
      // A directory as host is a Unix socket, as `pg` has it (the embedded database).
      const upstream = this.targetHost.startsWith('/')
        ? connect({ path: `${this.targetHost}/.s.PGSQL.${this.targetPort}` })
        : connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream);
      const delay = this.options.delayToClientMs ?? 0;
      if (delay === 0) upstream.pipe(client);
      // Timers of one duration fire in the order they were set: the bytes stay in order.
      else upstream.on('data', (chunk) => setTimeout(() => client.writable && client.write(chunk), delay));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.port = port === 0 ? await this.listenOnSomeStablePort() : await this.listen(port);
    return this.port;
  }

  /**
   * A port below the kernel's ephemeral range (32768 and up), so that `restore()` can listen on it
   * again: a port the kernel handed out for listening could meanwhile be the local port of any
   * connection another process opens, and the restore would fail with EADDRINUSE.
   */
  private async listenOnSomeStablePort(): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const port = STABLE_PORTS.from + Math.floor(Math.random() * (STABLE_PORTS.to - STABLE_PORTS.from));
      try {
        return await this.listen(port);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw error;
      }
    }
  }

  private listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = this.server!;
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  }

  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  hold(): void {
    for (const socket of this.sockets) socket.pause();
  }

  release(): void {
    for (const socket of this.sockets) socket.resume();
  }

  async restore(): Promise<void> {
    await this.start(this.port);
  }

  async stop(): Promise<void> {
    await this.cut().catch(() => undefined);
  }
}
