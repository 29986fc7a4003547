import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const all =
      body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request(new URL(path, base), { method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface WatchStream {
  status: Promise<number>;
  headers: Promise<Record<string, string | string[] | undefined>>;
  events: { type: string; object: Record<string, unknown> }[];
  /** Resolves with 'ended' when the server closes, 'stopped' when `until` held, 'timeout' otherwise. */
  finished(
    until: (events: WatchStream['events']) => boolean,
    timeoutMs: number,
  ): Promise<'ended' | 'stopped' | 'timeout'>;
  body: Promise<string>;
}

/** Opens a watch and parses its newline-delimited JSON events as they arrive. */
export function openWatch(base: string, path: string, headers: Record<string, string>): WatchStream {
  const events: WatchStream['events'] = [];
  let ended = false;
  let wake = (): void => {};
  let text = '';
  let resolveStatus!: (s: number) => void;
  let resolveHeaders!: (h: Record<string, string | string[] | undefined>) => void;
  let resolveBody!: (b: string) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const hdrs = new Promise<Record<string, string | string[] | undefined>>((r) => (resolveHeaders = r));
  const body = new Promise<string>((r) => (resolveBody = r));
  const req = request(new URL(path, base), { method: 'GET', headers }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    resolveHeaders(res.headers);
    let buf = '';
    res.on('data', (c: Buffer) => {
      const s = c.toString('utf8');
      text += s;
      if (res.statusCode !== 200) return;
      buf += s;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) events.push(JSON.parse(line) as WatchStream['events'][number]);
      }
      wake();
    });
    const done = (): void => {
      ended = true;
      resolveBody(text);
      wake();
    };
    res.on('end', done);
    res.on('close', done);
  });
  req.on('error', () => {
    ended = true;
    resolveStatus(0);
    resolveBody(text);
    wake();
  });
  req.end();
  return {
    status,
    headers: hdrs,
    events,
    body,
    finished(until, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish('timeout'), timeoutMs);
        const finish = (r: 'ended' | 'stopped' | 'timeout'): void => {
          clearTimeout(timer);
          wake = () => {};
          if (r !== 'ended') req.destroy();
          resolve(r);
        };
        wake = () => {
          if (until(events)) finish('stopped');
          else if (ended) finish('ended');
        };
        wake();
      });
    },
  };
}
