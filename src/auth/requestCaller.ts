import type { IncomingMessage } from 'node:http';
import type { Caller } from '../domain/caller';

/**
 * What the Kubernetes auth middleware found out about a request, for the routes after it: who the
 * caller is (their writes go out with their token, their name is recorded) and, for a list, which
 * namespaces they may list. Kept beside the request, not on it, and typed: the one path by which a
 * caller reaches the use cases (explicit arguments from there on).
 */
interface RequestAccess {
  caller: Caller;
  /** Whether a check of this request passed (the non-resource check is for those none took). */
  checked: boolean;
  /** What a list shows, when the caller may not list everything. */
  listable: ListScope | null;
}

/**
 * The namespaces a list shows: those whose jobs (the caller may list ScheduledJobs there), and
 * those whose watched CronJobs' jobs (they may list CronJobs there); null for every namespace.
 */
export interface ListScope {
  namespaces: readonly string[] | null;
  watched: readonly string[] | null;
}

const ACCESS = new WeakMap<IncomingMessage, RequestAccess>();

export function setCaller(req: IncomingMessage, caller: Caller): void {
  ACCESS.set(req, { caller, checked: false, listable: null });
}

/** The request's caller (SERVICE_AUTH=kubernetes), else null. */
export function callerOf(req: IncomingMessage): Caller | null {
  return ACCESS.get(req)?.caller ?? null;
}

export function markChecked(req: IncomingMessage, listable: ListScope | null = null): void {
  const access = ACCESS.get(req);
  if (!access) throw new Error('a request was checked before its caller was known');
  access.checked = true;
  access.listable = listable;
}

export function wasChecked(req: IncomingMessage): boolean {
  return ACCESS.get(req)?.checked ?? false;
}

/**
 * What a list may show (ListScope), or null when there is no limit (the caller may list everything,
 * or the service has no Kubernetes auth).
 */
export function listableNamespaces(req: IncomingMessage): ListScope | null {
  return ACCESS.get(req)?.listable ?? null;
}
