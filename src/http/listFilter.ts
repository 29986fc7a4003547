import type { Request } from 'express';
import { z } from 'zod';
import { listableNamespaces } from '../auth/requestCaller';
import { namespaceSchema } from '../domain/job';
import { singleQueryValue } from '../httpKit/queryParams';
import { parseOrThrow } from '../httpKit/validate';
import type { NamespaceFilter } from '../store/namespaceFilter';

/** `?namespace=`, which the lists take (`GET /api/jobs`, `/api/executions`, `/api/stats`). */
export const namespaceQueryParam = singleQueryValue(namespaceSchema.optional());

const namespaceQuerySchema = z.object({ namespace: namespaceQueryParam });

/**
 * The namespaces a list shows: those the request asks for (`?namespace=`), of those its caller
 * may list (SERVICE_AUTH=kubernetes: auth/kubernetesAuth.ts found them, apart for watched
 * CronJobs' jobs); null for a list of everything. `home`: the namespace a job not written to one
 * yet is in (NamespaceFilter).
 */
export function listFilterOf(req: Request, home: string | null): NamespaceFilter | null {
  const { namespace } = parseOrThrow(namespaceQuerySchema, req.query);
  const scope = listableNamespaces(req) ?? { namespaces: null, watched: null };
  const asked = (shown: readonly string[] | null): readonly string[] | null => {
    if (namespace === undefined) return shown;
    return shown === null || shown.includes(namespace) ? [namespace] : [];
  };
  const filter = { namespaces: asked(scope.namespaces), watchedNamespaces: asked(scope.watched), home };
  return filter.namespaces === null && filter.watchedNamespaces === null ? null : filter;
}
