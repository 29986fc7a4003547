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
 * may list (SERVICE_AUTH=kubernetes: auth/kubernetesAuth.ts found them); null for a list of
 * everything. `home`: the namespace a job not written to one yet is in (NamespaceFilter).
 */
export function listFilterOf(req: Request, home: string | null): NamespaceFilter | null {
  const { namespace } = parseOrThrow(namespaceQuerySchema, req.query);
  const listable = listableNamespaces(req);
  if (namespace === undefined) return listable === null ? null : { namespaces: listable, home };
  return { namespaces: listable === null || listable.includes(namespace) ? [namespace] : [], home };
}
