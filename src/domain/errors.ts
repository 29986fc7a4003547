/**
 * Errors the use cases raise; the HTTP layer maps each kind to a status (400, 403, 404, 409), so
 * the use cases know nothing of HTTP. `forbidden`: the cluster refused a write made with the
 * caller's own credentials (SERVICE_AUTH=kubernetes).
 */
export type DomainErrorKind = 'invalid' | 'forbidden' | 'not_found' | 'conflict';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string) => new DomainError('invalid', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
