import fc from 'fast-check';
import { checkCron, fireTimesAfter } from '../../src/domain/cron';
import { firstDueAt, planCursor } from '../../src/scheduling/slotPlan';
import type { SlotCursor } from '../../src/store/slots';

const at = (time: string) => new Date(time);
const hm = (dates: Date[]) => dates.map((date) => date.toISOString().slice(11, 16));

function cursor(overrides: Partial<SlotCursor> = {}): SlotCursor {
  return {
    jobId: 1,
    jobName: 'j',
    judgedUntil: at('2026-06-01T10:00:00Z'),
    dueAt: null,
    schedule: '*/10 * * * *',
    timezone: null,
    earlierSchedules: [],
    lateAfterSeconds: 60,
    catchUp: null,
    ...overrides,
  };
}

describe('planning a cursor’s move', () => {
  it('takes the slots whose grace has passed and says when the next one is due', () => {
    const plan = planCursor(cursor(), at('2026-06-01T10:31:00Z'), 'UTC', null, 1000)!;
    expect(hm(plan.slots)).toEqual(['10:10', '10:20', '10:30']);
    expect(plan.judgedUntil.toISOString()).toBe('2026-06-01T10:30:00.000Z');
    expect(plan.dueAt?.toISOString()).toBe('2026-06-01T10:41:00.000Z');
  });

  it('judges a long downtime over several passes, at most maxSlots a pass', () => {
    const first = planCursor(cursor({ schedule: '* * * * *' }), at('2026-06-01T12:00:00Z'), 'UTC', null, 50)!;
    expect(first.slots).toHaveLength(50);
    expect(first.judgedUntil.toISOString()).toBe('2026-06-01T10:50:00.000Z');
    // Due at once: the rest waits for the next batch.
    expect(first.dueAt?.toISOString()).toBe('2026-06-01T10:52:00.000Z');
    const second = planCursor(
      cursor({ schedule: '* * * * *', judgedUntil: first.judgedUntil }),
      at('2026-06-01T12:00:00Z'),
      'UTC',
      null,
      1000,
    )!;
    expect(hm(second.slots.slice(0, 1))).toEqual(['10:51']);
    expect(hm(second.slots.slice(-1))).toEqual(['11:59']);
  });

  it('stops before a slot a catch-up is about to run', () => {
    const plan = planCursor(cursor(), at('2026-06-01T11:00:00Z'), 'UTC', at('2026-06-01T10:30:00Z'), 1000)!;
    expect(hm(plan.slots)).toEqual(['10:10', '10:20']);
    expect(plan.judgedUntil.toISOString()).toBe('2026-06-01T10:29:59.999Z');
  });

  it('reads each slot with the schedule in force at its time, and keeps the earlier ones still needed', () => {
    const edited = cursor({
      schedule: '*/15 * * * *',
      earlierSchedules: [{ schedule: '*/10 * * * *', timezone: null, until: at('2026-06-01T10:25:00Z') }],
    });
    const before = planCursor(edited, at('2026-06-01T10:21:00Z'), 'UTC', null, 1000)!;
    expect(hm(before.slots)).toEqual(['10:10', '10:20']);
    expect(before.earlierSchedules).toEqual(edited.earlierSchedules);
    // The next slot is the old schedule's none before 10:25: the new one's 10:30.
    expect(before.dueAt?.toISOString()).toBe('2026-06-01T10:31:00.000Z');
    const after = planCursor(
      { ...edited, judgedUntil: before.judgedUntil },
      at('2026-06-01T11:00:00Z'),
      'UTC',
      null,
      1000,
    )!;
    expect(hm(after.slots)).toEqual(['10:30', '10:45']);
    expect(after.earlierSchedules).toEqual([]);
  });

  it('leaves alone a cursor whose schedule cannot be read', () => {
    expect(
      planCursor(cursor({ schedule: 'every day' }), at('2026-06-01T11:00:00Z'), 'UTC', null, 1000),
    ).toBeNull();
  });

  it('plans what a walk over every fire time gives, in every zone, up to the horizon itself', () => {
    const schedules = ['*/10 * * * *', '30 2 * * *', '0 0 * * 0', '15 3 1 * *', '*/7 9-17 * * 1-5'];
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'];
    const minute = 60_000;
    /** Every fire time after `after`, one by one, up to the first past `horizon`. */
    const walk = (fields: string, zone: string, after: Date, horizon: number) => {
      const slots: number[] = [];
      for (const slot of fireTimesAfter(fields, zone, after)) {
        if (slot.getTime() > horizon) return { slots, beyond: slot.getTime() };
        slots.push(slot.getTime());
      }
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...schedules),
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 365 * 24 * 60 }),
        // The horizon (now less the grace) from the cursor's first slot on: on it, just before or
        // after it (where a plan may take it or leave it), or anywhere in the next three days.
        fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -60, max: 3 * 24 * 60 })),
        fc.constantFrom(0, 60, 300),
        (schedule, zone, startMinute, horizonMinutes, graceSeconds) => {
          const check = checkCron(schedule);
          if (!check.valid) throw new Error(check.error);
          const judgedUntil = new Date(Date.UTC(2026, 0, 1) + startMinute * minute);
          const first = walk(check.fields, zone, judgedUntil, -Infinity)!.beyond;
          const horizon = first + horizonMinutes * minute;
          const plan = planCursor(
            cursor({ schedule, timezone: zone, judgedUntil, lateAfterSeconds: graceSeconds }),
            new Date(horizon + graceSeconds * 1000),
            'UTC',
            null,
            1000,
          )!;
          const expected = walk(check.fields, zone, judgedUntil, horizon)!;
          expect(plan.slots.map((slot) => slot.getTime())).toEqual(expected.slots);
          expect(plan.dueAt?.getTime()).toBe(expected.beyond + graceSeconds * 1000);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('plans a new job’s cursor at its creation as every pass of the judge before it is due would', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('*/10 * * * *', '30 2 * * *', '0 0 * * 0', '15 3 1 * *', '*/7 9-17 * * 1-5'),
        fc.constantFrom(null, 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'),
        fc.integer({ min: 0, max: 365 * 24 * 60 * 60 }),
        fc.constantFrom(0, 60, 300),
        // When the judge's pass comes, as a share of the time from the creation to the first due.
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (schedule, timezone, startSecond, lateAfterSeconds, passAt) => {
          const createdAt = new Date(Date.UTC(2026, 0, 1) + startSecond * 1000 + 123);
          const job = { schedule, timezone, lateAfterSeconds };
          const due = firstDueAt(job, createdAt, 'Asia/Tokyo');
          expect(due).not.toBeNull();
          const now = new Date(
            createdAt.getTime() + Math.floor(passAt * (due!.getTime() - createdAt.getTime())),
          );
          const fresh = cursor({ ...job, judgedUntil: createdAt });
          const plan = planCursor(fresh, now, 'Asia/Tokyo', null, 1000)!;
          expect(plan.slots).toEqual([]);
          expect(plan.dueAt).toEqual(due);
          // Never later than the first slot's grace: the judge would otherwise judge it late.
          const first = fireTimesAfter(checkCronFields(schedule), timezone ?? 'Asia/Tokyo', createdAt).next()
            .value!;
          expect(due!.getTime()).toBe(first.getTime() + lateAfterSeconds * 1000);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('leaves a new job whose schedule it cannot read for the judge to plan', () => {
    for (const schedule of ['every day', '0 0 30 2 *']) {
      expect(
        firstDueAt({ schedule, timezone: null, lateAfterSeconds: 60 }, at('2026-06-01T10:00:00Z'), 'UTC'),
      ).toBeNull();
    }
  });
});

function checkCronFields(schedule: string): string {
  const check = checkCron(schedule);
  if (!check.valid) throw new Error(check.error);
  return check.fields;
}
