/** A slot as `GET /api/jobs/:id/slots` answers it (docs/slots.md). */
export interface SlotJson {
  scheduledAt: string;
  outcome: string;
  executionIds: number[];
  startedAt: string | null;
  delayMs: number | null;
  reason: string | null;
}
