/**
 * What one delivery attempt came to. `retry`: worth trying again later (network, timeout, 5xx,
 * 429). `rejected`: trying again cannot help (4xx, a denied address, a refused recipient).
 * `interrupted`: the service stopped mid-send; the attempt does not count.
 */
export type DeliveryOutcome =
  | { status: 'delivered' }
  | { status: 'retry'; error: string; retryAfterMs?: number }
  | { status: 'rejected'; error: string }
  | { status: 'interrupted' };
