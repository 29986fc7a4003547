import type { SlotOutcome } from '../domain/slots';
import type { JudgedStretch } from '../store/slotStretches';
import type { JudgedSlotOfJob } from '../store/transactionHooks';

/** Outcomes a stretch may have: those of a slot nothing ran for. */
const STRETCHABLE: ReadonlySet<SlotOutcome> = new Set(['missed', 'skipped', 'suspended', 'paused']);

/**
 * Slots of one job judged one by one in a long gap (oldest first), with runs of two or more alike
 * (one outcome and reason, no execution, one schedule) told as stretches, so that a gap with some
 * evidence in it is a few rows, not a row per slot. The rest stay slots.
 */
export function mergeIntoStretches(
  judged: JudgedSlotOfJob[],
  scheduleOf: (slot: Date) => { fields: string; timeZone: string } | null,
): { slots: JudgedSlotOfJob[]; stretches: JudgedStretch[] } {
  const slots: JudgedSlotOfJob[] = [];
  const stretches: JudgedStretch[] = [];
  let run: { items: JudgedSlotOfJob[]; schedule: { fields: string; timeZone: string } } | null = null;
  const close = () => {
    if (!run) return;
    const { items, schedule } = run;
    if (items.length < 2) slots.push(...items);
    else {
      const first = items[0]!;
      stretches.push({
        jobId: first.jobId,
        ...schedule,
        first: first.scheduledAt,
        last: items[items.length - 1]!.scheduledAt,
        count: items.length,
        outcome: first.outcome,
        reason: first.reason,
      });
    }
    run = null;
  };
  for (const slot of judged) {
    const schedule =
      STRETCHABLE.has(slot.outcome) && slot.executionIds.length === 0 ? scheduleOf(slot.scheduledAt) : null;
    if (!schedule) {
      close();
      slots.push(slot);
      continue;
    }
    const last = run?.items[0];
    if (
      !run ||
      last!.outcome !== slot.outcome ||
      last!.reason !== slot.reason ||
      run.schedule.fields !== schedule.fields ||
      run.schedule.timeZone !== schedule.timeZone
    ) {
      close();
      run = { items: [], schedule };
    }
    run!.items.push(slot);
  }
  close();
  return { slots, stretches };
}
