import { createHash, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import type { Store } from './store';

/** The ServiceAccount issuer, also the API server's audience (kube-api README "The server"). */
export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

/** go-jose's DefaultLeeway: the clock skew the JWT validator forgives on `nbf` and `exp`. */
const LEEWAY_SECONDS = 60;

/** A claim set as pkg/serviceaccount Claims writes it for a TokenRequest bound to nothing. */
interface TokenClaims {
  aud?: string | string[];
  exp?: number;
  iat?: number;
  iss?: string;
  jti?: string;
  nbf?: number;
  sub?: string;
  'kubernetes.io'?: { namespace?: string; serviceaccount?: { name?: string; uid?: string } };
}

/** Who a token is, as the ServiceAccount token authenticator reports it. */
interface ServiceAccountIdentity {
  name: string;
  groups: string[];
  uid: string;
  extra: Record<string, string[]>;
}

/**
 * What a token authenticator says: `null` when the token is not its kind (another authenticator
 * may take it), an error text when it is its kind but fails, else the identity and audiences.
 */
export type TokenVerdict = null | { error: string } | { user: ServiceAccountIdentity; audiences: string[] };

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Go's base64.RawURLEncoding.DecodeString then json.Unmarshal into an object, or undefined. */
function decodeSegment(segment: string): Record<string, unknown> | undefined {
  if (!BASE64URL.test(segment) || segment.length % 4 === 1) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Go's %q of a []string, as the audience error prints it: `["a" "b"]`. */
function goStrings(list: string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/**
 * The emulated cluster's ServiceAccount token signer and authenticator (pkg/serviceaccount jwt.go
 * and claims.go): tokens are real compact JWS (three base64url segments) signed with this
 * emulator's own ES256 key, so a token of another emulator fails as one of another cluster would.
 * A client must not read them: only a TokenReview says who a token is.
 */
export class ServiceAccountTokens {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly kid: string;
  /** Every token minted, with its subject and audiences: for tests that need a token they did not keep. */
  readonly issued = new Map<string, { subject: string; audiences: string[] }>();

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.publicKey = publicKey;
    // As keyIDFromPublicKey: a hash of the DER public key, base64url.
    const der = publicKey.export({ type: 'spki', format: 'der' });
    this.kid = createHash('sha256').update(der).digest('base64url');
  }

  /** A TokenRequest's token (12-auth #4, #5): claims as serviceaccount.Claims sets them, keys sorted. */
  mint(opts: {
    namespace: string;
    name: string;
    uid: string;
    audiences: string[];
    expirationSeconds: number;
    now: Date;
  }): { token: string; jti: string; expiration: Date } {
    const issuedAt = Math.floor(opts.now.getTime() / 1000);
    const jti = randomUUID();
    const claims: TokenClaims = {
      aud: opts.audiences,
      exp: issuedAt + opts.expirationSeconds,
      iat: issuedAt,
      iss: API_AUDIENCE,
      jti,
      'kubernetes.io': { namespace: opts.namespace, serviceaccount: { name: opts.name, uid: opts.uid } },
      nbf: issuedAt,
      sub: `system:serviceaccount:${opts.namespace}:${opts.name}`,
    };
    const head = Buffer.from(JSON.stringify({ alg: 'ES256', kid: this.kid })).toString('base64url');
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const signature = sign('sha256', Buffer.from(`${head}.${body}`), {
      key: this.privateKey,
      dsaEncoding: 'ieee-p1363',
    }).toString('base64url');
    const token = `${head}.${body}.${signature}`;
    this.issued.set(token, { subject: claims.sub!, audiences: opts.audiences });
    return { token, jti, expiration: new Date((issuedAt + opts.expirationSeconds) * 1000) };
  }

  /**
   * jwtTokenAuthenticator.AuthenticateToken then the bound-token validator, in their order:
   * issuer (not ours: null), key id and signature, audiences, `nbf`/`exp` with a minute's leeway,
   * then the ServiceAccount must still exist with the uid the token names.
   */
  authenticate(token: string, requested: string[] | undefined, now: Date, store: Store): TokenVerdict {
    if (token.trim().startsWith('{')) return null;
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const claims = decodeSegment(parts[1]!) as TokenClaims | undefined;
    if (!claims || claims.iss !== API_AUDIENCE) return null;
    const header = decodeSegment(parts[0]!);
    if (!header || typeof header.alg !== 'string' || !BASE64URL.test(parts[2]!)) return null;
    if (typeof header.kid === 'string' && header.kid !== '' && header.kid !== this.kid) {
      return { error: 'invalid signature, no keys found' };
    }
    const signed = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(parts[2]!, 'base64url'),
    );
    if (header.alg !== 'ES256' || !signed) {
      // Not a text upstream defines: go-jose's verification failure, as the emulator words it.
      return { error: 'go-jose/go-jose: error in cryptographic primitive' };
    }
    return this.validate(claims, requested, now, store);
  }

  private validate(
    claims: TokenClaims,
    requested: string[] | undefined,
    now: Date,
    store: Store,
  ): TokenVerdict {
    const aud = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    const tokenAudiences = aud.length > 0 ? aud : [API_AUDIENCE];
    const target = requested ?? [API_AUDIENCE];
    const audiences = tokenAudiences.filter((a) => target.includes(a));
    if (audiences.length === 0) {
      return {
        error: `token audiences ${goStrings(tokenAudiences)} is invalid for the target audiences ${goStrings(target)}`,
      };
    }
    const seconds = now.getTime() / 1000;
    if (claims.nbf !== undefined && seconds + LEEWAY_SECONDS < claims.nbf) {
      return { error: 'service account token is not valid yet' };
    }
    if (claims.exp !== undefined && seconds - LEEWAY_SECONDS > claims.exp) {
      return { error: 'service account token has expired' };
    }
    const namespace = claims['kubernetes.io']?.namespace ?? '';
    const name = claims['kubernetes.io']?.serviceaccount?.name ?? '';
    const uid = claims['kubernetes.io']?.serviceaccount?.uid ?? '';
    // The getter falls back to a GET, whose NotFound text this is.
    const sa = store.get('/serviceaccounts', namespace, name);
    if (!sa) return { error: `serviceaccounts "${name}" not found` };
    const deleted = sa.metadata.deletionTimestamp as string | undefined;
    if (deleted && Date.parse(deleted) < now.getTime() - LEEWAY_SECONDS * 1000) {
      return { error: `service account ${namespace}/${name} has been deleted` };
    }
    if (sa.metadata.uid !== uid) {
      return { error: `service account UID (${sa.metadata.uid}) does not match claim (${uid})` };
    }
    const user: ServiceAccountIdentity = {
      name: `system:serviceaccount:${namespace}:${name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
      uid,
      extra: claims.jti ? { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] } : {},
    };
    return { user, audiences };
  }
}
