import { randomBytes } from 'node:crypto';
import { ApiError, fieldErr, invalid, notFound } from '../errors';
import type { HandlerResult, RequestContext, ServerServices } from '../handlers/context';
import { subresourceHandlers } from '../handlers/subresources';
import { rfc3339, type Obj } from '../types';

const ISSUER_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

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
    const token = `${b64url({ alg: 'RS256', kid: 'emulator' })}.${b64url({ sub: `system:serviceaccount:${ns}:${name}`, jti: randomBytes(8).toString('hex') })}.${randomBytes(32).toString('base64url')}`;
    svc.addToken(token, {
      name: `system:serviceaccount:${ns}:${name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
    });
    return {
      status: 201,
      body: {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name, namespace: ns, creationTimestamp: rfc3339(now) },
        spec: {
          audiences: spec.audiences ?? [ISSUER_AUDIENCE],
          expirationSeconds,
          boundObjectRef: spec.boundObjectRef ?? null,
        },
        status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
      },
    };
  },
);
