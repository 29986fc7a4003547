import { quickFireTimesAfter } from '../domain/cronWallTimes';

/** How a backfill's range is listed: a few slots per turn of the event loop, then other work's turn. */
export interface SlotListing {
  /** Slots listed in one turn at most. */
  slotsPerTurn: number;
  /** Lets the event loop serve what waits (a health check, other requests); resolves to go on. */
  nextTurn(): Promise<void>;
}

/**
 * Fifty slots cost some 1.5 ms in a zone with daylight saving (Intl reads each one's offset) and a
 * tenth of that in UTC: a health check waits about that long behind each backfill being counted.
 */
export const DEFAULT_SLOT_LISTING: SlotListing = {
  slotsPerTurn: 50,
  nextTurn: () => new Promise((resolve) => setImmediate(resolve)),
};

/** A backfill's slots: those of the range, oldest first, or the news that it holds more than the limit. */
export type BackfillSlots = { slots: Date[]; overLimit: false } | { slots: null; overLimit: true };

/**
 * The slots of a schedule in [from, to], at most `limit` of them: listing stops at the first slot
 * past the limit, so a range too wide costs `limit + 1` slots, never the range. They are listed by
 * arithmetic on the fields (domain/cronWallTimes.ts), the same slots as the scheduler's, and the
 * event loop is let go every `slotsPerTurn` of them, so that counting a wide range (a refusal
 * included) never holds the service up.
 */
export async function listBackfillSlots(
  fields: string,
  timeZone: string,
  from: Date,
  to: Date,
  limit: number,
  listing: SlotListing = DEFAULT_SLOT_LISTING,
): Promise<BackfillSlots> {
  const slots: Date[] = [];
  const untilMs = to.getTime();
  if (untilMs < from.getTime()) return { slots, overLimit: false };
  const times = quickFireTimesAfter(fields, timeZone, new Date(from.getTime() - 1));
  let inTurn = 0;
  for (;;) {
    if (inTurn >= listing.slotsPerTurn) {
      await listing.nextTurn();
      inTurn = 0;
    }
    inTurn++;
    const slot = nextOf(times);
    if (slot === null || slot.getTime() > untilMs) return { slots, overLimit: false };
    if (slots.length >= limit) return { slots: null, overLimit: true };
    slots.push(slot);
  }
}

/** The next fire time; null for an expression that stops firing (one stored before it was refused). */
function nextOf(times: Iterator<Date>): Date | null {
  try {
    return times.next().value as Date;
  } catch {
    return null;
  }
}
