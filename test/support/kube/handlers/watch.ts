import type { ServerResponse } from 'node:http';
import { apiVersionOf, present, resourceKey } from '../resources';
import type { WatchEventRecord } from '../store';
import type { Obj } from '../types';
import type { RequestContext, ServerServices } from './context';
import { selectorFilter, validateListParams } from './read';

export interface WatchOptions {
  /** Registers the stream so the emulator can end it (expireWatches). */
  track(end: () => void): () => void;
  /** How long before timeoutSeconds the server sends its BOOKMARK (real: ~1–2 s, 06-watch #5). */
  bookmarkLeadMs: number;
}

/**
 * A watch stream: newline-delimited JSON events, like the real server's chunked response.
 * Semantics follow 06-watch: synthetic ADDED for rv absent/0, history replay from an rv,
 * in-stream 410 for a compacted rv, silence for a future rv, label-selector enter/leave.
 */
export function watch(
  svc: ServerServices,
  ctx: RequestContext,
  res: ServerResponse,
  opts: WatchOptions,
): void {
  const type = ctx.type;
  const q = ctx.query;
  validateListParams(q, true);
  const filter = selectorFilter(type, q);
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  const key = resourceKey(type);
  const rvParam = q.get('resourceVersion');
  const bookmarks = q.get('allowWatchBookmarks') === 'true';
  const sendInitial = q.get('sendInitialEvents') === 'true';
  const timeoutMs = q.get('timeoutSeconds') ? Number(q.get('timeoutSeconds')) * 1000 : 30 * 60 * 1000;

  res.writeHead(200, {
    'content-type': 'application/json',
    'transfer-encoding': 'chunked',
    'cache-control': 'no-cache, private',
  });
  res.flushHeaders();
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe = (): void => {};
  const end = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    res.end();
  };
  res.on('close', end);
  const untrack = opts.track(end);
  res.on('close', untrack);
  const send = (type: string, object: Obj): void => {
    if (!closed)
      res.write(
        `${JSON.stringify({ type, object: type === 'BOOKMARK' || type === 'ERROR' ? object : present(ctx.type, object) })}\n`,
      );
  };
  const bookmark = (annotations?: Record<string, string>): void => {
    const metadata: Obj = { resourceVersion: String(svc.store.currentRv()) };
    if (annotations) metadata.annotations = annotations;
    send('BOOKMARK', { kind: type.kind, apiVersion: apiVersionOf(type), metadata });
  };
  const inScope = (e: WatchEventRecord): boolean =>
    e.resourceKey === key && (ns === undefined || e.namespace === ns);
  const deliver = (e: WatchEventRecord): void => {
    if (!inScope(e)) return;
    const now = filter.matches(present(type, e.object));
    const before = e.previous ? filter.matches(present(type, e.previous)) : false;
    if (e.type === 'ADDED') {
      if (now) send('ADDED', e.object);
    } else if (e.type === 'DELETED') {
      if (before) send('DELETED', e.object);
    } else if (now && before) {
      send('MODIFIED', e.object);
    } else if (now) {
      send('ADDED', e.object);
    } else if (before) {
      // Leaving the selector: DELETED with the previous (still matching) state, its rv moved on.
      send('DELETED', {
        ...e.previous!,
        metadata: { ...e.previous!.metadata, resourceVersion: String(e.rv) },
      });
    }
  };

  let startRv: number;
  if (!rvParam || rvParam === '0' || sendInitial) {
    startRv = svc.store.currentRv();
    for (const o of svc.store.list(key, ns)) if (filter.matches(present(type, o))) send('ADDED', o);
    if (bookmarks && (rvParam === '0' || sendInitial)) {
      bookmark({
        'k8s.io/initial-events-end': 'true',
        'kubernetes.io/initial-events-list-blueprint': Buffer.from(
          `${JSON.stringify({ apiVersion: apiVersionOf(type), items: [], kind: type.listKind })}\n`,
        ).toString('base64'),
      });
    }
  } else {
    startRv = Number(rvParam);
    if (startRv < svc.store.oldestRv()) {
      send('ERROR', {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: ${startRv} (${svc.store.oldestRv() + 1})`,
        reason: 'Expired',
        code: 410,
      });
      end();
      return;
    }
    if (startRv <= svc.store.currentRv()) for (const e of svc.store.since(key, startRv)) deliver(e);
  }
  unsubscribe = svc.store.subscribe((e) => {
    if (e.rv > startRv) deliver(e);
  });
  if (bookmarks) timers.push(setTimeout(() => bookmark(), Math.max(0, timeoutMs - opts.bookmarkLeadMs)));
  timers.push(setTimeout(end, timeoutMs));
}
