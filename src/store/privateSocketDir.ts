import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The port in the socket's name: `pg` connects to `<dir>/.s.PGSQL.<port>` when `host` is a directory. */
export const SOCKET_PORT = 5432;

/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 100;

export interface PrivateSocketDir {
  dir: string;
  /** Where the server listens. */
  socketPath: string;
  remove(): void;
}

/**
 * A directory only this process's user can enter, for the embedded database's Unix socket: the
 * embedded server asks for no password, so the file system is what keeps other local accounts
 * out. It lives in the data directory when there is one (a socket in /tmp can be swept away by a
 * cleaner while the service runs), else (in-memory databases, a path too long for a socket) in a
 * fresh temporary directory.
 */
export function openPrivateSocketDir(dataDir?: string): PrivateSocketDir {
  if (dataDir) {
    const dir = join(resolve(dataDir), '.crondeck-socket');
    const socketPath = join(dir, `.s.PGSQL.${SOCKET_PORT}`);
    if (socketPath.length <= MAX_SOCKET_PATH) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const stat = lstatSync(dir);
      // Someone else's directory (or a link to one) would hand them the socket.
      if (!stat.isDirectory() || stat.isSymbolicLink() || stat.uid !== process.getuid?.()) {
        throw new Error(`${dir} must be a directory owned by this user`);
      }
      chmodSync(dir, 0o700);
      // A socket left by a crash; the data directory's lock says no live process uses it.
      rmSync(socketPath, { force: true });
      return { dir, socketPath, remove: () => rmSync(socketPath, { force: true }) };
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-db-'));
  return {
    dir,
    socketPath: join(dir, `.s.PGSQL.${SOCKET_PORT}`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
