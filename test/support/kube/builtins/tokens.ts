import { randomBytes, randomUUID } from 'node:crypto';
import { API_AUDIENCE } from '../auth';
import { ApiError, fieldErr, invalid, notFound } from '../errors';
import type { HandlerResult, RequestContext, ServerServices } from '../handlers/context';
import { subresourceHandlers } from '../handlers/subresources';
import { rfc3339, type Obj } from '../types';

function b64url(o: unknown): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url');
}

/**
 * serviceaccounts/token (TokenRequest, 12-auth #4–#7): mints a JWT-shaped bearer token that the
 * emulator then accepts as the ServiceAccount's identity.
 */
subresourceHandlers.set(
  'serviceaccounts/token',
  (svc: ServerServices, ctx: RequestContext): HandlerResult => {
    const ns = ctx.info.namespace!;
    const name = ctx.info.name!;
    const body = (JSON.parse(ctx.rawBody || '{}') as Obj) ?? {};
    const spec = (body.spec ?? {}) as Obj;
    const expirationSeconds = spec.expirationSeconds ?? 3600;
    if (expirationSeconds < 600) {
      throw invalid('TokenRequest', 'authentication.k8s.io', '', [
        fieldErr.invalid(
          'spec.expirationSeconds',
          expirationSeconds,
          'may not specify a duration less than 10 minutes',
        ),
      ]);
    }
    const sa = svc.store.get('/serviceaccounts', ns, name);
    if (!sa) throw notFound('serviceaccounts', '', name);
    if (ctx.dryRun) throw new ApiError(501, 'NotImplemented', 'not emulated: dry-run TokenRequest');
    const now = svc.now();
    // Absent or empty, the API server's own (as its TokenRequest storage fills them in).
    const asked = (spec.audiences as string[] | undefined) ?? [];
    const audiences = asked.length > 0 ? asked : [API_AUDIENCE];
    const jti = randomUUID();
    const token = `${b64url({ alg: 'RS256', kid: 'emulator' })}.${b64url({ aud: audiences, sub: `system:serviceaccount:${ns}:${name}`, jti })}.${randomBytes(32).toString('base64url')}`;
    svc.addToken(token, {
      name: `system:serviceaccount:${ns}:${name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      uid: sa.metadata.uid,
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
      audiences,
    });
    return {
      status: 201,
      body: {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name, namespace: ns, creationTimestamp: rfc3339(now) },
        spec: {
          audiences,
          expirationSeconds,
          boundObjectRef: spec.boundObjectRef ?? null,
        },
        status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
      },
    };
  },
);
