import { checkCron } from '../../src/domain/cron';
import { slotsBetween } from '../../src/domain/slots';
import { listBackfillSlots, type SlotListing } from '../../src/scheduling/backfillSlots';

const fieldsOf = (expression: string) => {
  const check = checkCron(expression);
  if (!check.valid) throw new Error(check.error);
  return check.fields;
};

/** A listing that counts the turns it lets go: one before each `slotsPerTurn` slots after the first ones. */
function countingTurns(slotsPerTurn: number): SlotListing & { turns: number } {
  const listing = { slotsPerTurn, turns: 0, nextTurn: async () => void listing.turns++ };
  return listing;
}

const everyMinute = fieldsOf('* * * * *');
const wide = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-06-01T00:00:00Z') };

describe('counting a backfill’s range', () => {
  it('looks at the first slot past the limit and no further', async () => {
    // A turn let go before every slot after the first: the turns count the slots looked at.
    const listing = countingTurns(1);
    const result = await listBackfillSlots(everyMinute, 'Europe/Berlin', wide.from, wide.to, 1000, listing);
    expect(result).toEqual({ slots: null, overLimit: true });
    expect(listing.turns).toBe(1000);
  });

  it('lets the event loop go every `slotsPerTurn` slots', async () => {
    const listing = countingTurns(50);
    await listBackfillSlots(everyMinute, 'Europe/Berlin', wide.from, wide.to, 1000, listing);
    // 1001 slots, fifty a turn: 21 turns, 20 of them let go between.
    expect(listing.turns).toBe(20);
  });

  it('lists the slots the scheduler fires, daylight saving included', async () => {
    const fields = fieldsOf('*/7 1-3 * * *');
    const from = new Date('2026-03-28T00:00:00Z');
    const to = new Date('2026-03-31T00:00:00Z');
    const result = await listBackfillSlots(fields, 'Europe/Berlin', from, to, 1000, countingTurns(4));
    const expected = slotsBetween(fields, 'Europe/Berlin', new Date(from.getTime() - 1), to, 1000);
    expect(result).toEqual({ slots: expected, overLimit: false });
  });

  it('takes exactly the limit, a range of one instant, and a range with none', async () => {
    const hourly = fieldsOf('0 * * * *');
    const at = (iso: string) => new Date(iso);
    expect(
      (await listBackfillSlots(hourly, 'UTC', at('2026-01-01T00:00:00Z'), at('2026-01-01T09:00:00Z'), 10))
        .slots,
    ).toHaveLength(10);
    expect(
      (await listBackfillSlots(hourly, 'UTC', at('2026-01-01T05:00:00Z'), at('2026-01-01T05:00:00Z'), 10))
        .slots,
    ).toEqual([at('2026-01-01T05:00:00Z')]);
    expect(
      await listBackfillSlots(hourly, 'UTC', at('2026-01-01T05:00:01Z'), at('2026-01-01T05:59:59Z'), 10),
    ).toEqual({ slots: [], overLimit: false });
  });
});
