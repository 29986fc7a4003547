import { API_AUDIENCE } from '../auth';
import { ApiError, fieldErr, invalid, notFound, type FieldError } from '../errors';
import type { HandlerResult, RequestContext, ServerServices } from '../handlers/context';
import { subresourceHandlers } from '../handlers/subresources';
import { rfc3339, type Obj } from '../types';

/** TokenRequest's defaulted lifetime (SetDefaults_TokenRequestSpec). */
const DEFAULT_EXPIRATION_SECONDS = 3600;

/** ValidateTokenRequest: at least ten minutes, at most 2^32 seconds. */
function validateExpiration(seconds: number): FieldError[] {
  if (seconds < 600) {
    return [
      fieldErr.invalid('spec.expirationSeconds', seconds, 'may not specify a duration less than 10 minutes'),
    ];
  }
  if (seconds > 2 ** 32) {
    return [
      fieldErr.invalid(
        'spec.expirationSeconds',
        seconds,
        'may not specify a duration larger than 2^32 seconds',
      ),
    ];
  }
  return [];
}

/**
 * serviceaccounts/token (TokenRequest, 12-auth #4–#7): a signed JWT for the ServiceAccount
 * (serviceAccountTokens.ts), for the audiences asked (the API server's when none) and valid for
 * `expirationSeconds` from now. The emulator sets no `--service-account-max-token-expiration`,
 * so a long lifetime is kept as asked. Tokens bound to a Pod or Secret are not emulated.
 */
subresourceHandlers.set(
  'serviceaccounts/token',
  (svc: ServerServices, ctx: RequestContext): HandlerResult => {
    const ns = ctx.info.namespace!;
    const name = ctx.info.name!;
    const body = (JSON.parse(ctx.rawBody || '{}') as Obj) ?? {};
    const spec = (body.spec ?? {}) as Obj;
    const expirationSeconds = (spec.expirationSeconds as number | undefined) ?? DEFAULT_EXPIRATION_SECONDS;
    const errs = validateExpiration(expirationSeconds);
    if (errs.length) throw invalid('TokenRequest', 'authentication.k8s.io', '', errs);
    if (spec.boundObjectRef)
      throw new ApiError(501, 'NotImplemented', 'not emulated: TokenRequest boundObjectRef');
    const sa = svc.store.get('/serviceaccounts', ns, name);
    if (!sa) throw notFound('serviceaccounts', '', name);
    if (ctx.dryRun) throw new ApiError(501, 'NotImplemented', 'not emulated: dry-run TokenRequest');
    const now = svc.now();
    // Absent or empty, the API server's own (as its TokenRequest storage fills them in).
    const asked = (spec.audiences as string[] | undefined) ?? [];
    const audiences = asked.length > 0 ? asked : [API_AUDIENCE];
    const minted = svc.serviceAccountTokens.mint({
      namespace: ns,
      name,
      uid: sa.metadata.uid as string,
      audiences,
      expirationSeconds,
      now,
    });
    return {
      status: 201,
      body: {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name, namespace: ns, creationTimestamp: rfc3339(now) },
        spec: { audiences, expirationSeconds, boundObjectRef: null },
        status: { token: minted.token, expirationTimestamp: rfc3339(minted.expiration) },
      },
    };
  },
);
