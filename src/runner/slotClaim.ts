import { postUntilAnswered, type ServicePostOptions } from './servicePost';

/** What became of a run's claim on its slot (the claim contract, docs/slots-on-kubernetes.md). */
export type ClaimOutcome =
  /** The run has the slot; `slot` is the slot the service mapped the time to (a DST repeat's). */
  | { kind: 'claimed'; slot: Date; duplicate: boolean }
  /** Another run has the slot: this one must not run the command. */
  | { kind: 'refused'; why: string }
  /** No answer about the slot (the service away past the budget, or too old to know claims). */
  | { kind: 'unclaimed'; why: string };

export interface SlotClaimRequest {
  reportUrl: string;
  jobId: number;
  /** The time the run is for, as the runner knows it. */
  scheduledAt: Date;
  /** Names the run: its Kubernetes Job's UID, so that a retried claim is the same claim. */
  runKey: string;
}

/**
 * Claims the run's slot before the command starts (`POST /api/jobs/:id/slots/claim`), retried like
 * a report while the service cannot answer. A 409 is the service saying another run has the slot.
 * Any other refusal (a service older than the ledger answers 404) or no answer within the budget
 * leaves the slot unclaimed: the run then goes on, as runs did before the ledger.
 */
export async function claimSlot(
  request: SlotClaimRequest,
  options: ServicePostOptions,
): Promise<ClaimOutcome> {
  const url = new URL(`/api/jobs/${request.jobId}/slots/claim`, request.reportUrl).toString();
  const body = JSON.stringify({ scheduledAt: request.scheduledAt.toISOString(), runKey: request.runKey });
  let answer;
  try {
    answer = await postUntilAnswered(url, body, options);
  } catch (error) {
    return { kind: 'unclaimed', why: `gave up claiming it: ${(error as Error).message}` };
  }
  const parsed = parseJson(answer.text);
  if (answer.status === 409) {
    return { kind: 'refused', why: errorOf(parsed) ?? 'another run has claimed it' };
  }
  if (answer.status === 200 && parsed?.claimed === true) {
    const slot = typeof parsed.scheduledAt === 'string' ? new Date(parsed.scheduledAt) : request.scheduledAt;
    return {
      kind: 'claimed',
      slot: Number.isNaN(slot.getTime()) ? request.scheduledAt : slot,
      duplicate: parsed.duplicate === true,
    };
  }
  return {
    kind: 'unclaimed',
    why: `the service answered ${answer.status}${errorOf(parsed) ? `: ${errorOf(parsed)}` : ''}`,
  };
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function errorOf(parsed: Record<string, unknown> | null): string | null {
  return typeof parsed?.error === 'string' ? parsed.error : null;
}
