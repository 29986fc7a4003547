import fc from 'fast-check';
import { checkCron, nextFireTime } from '../../src/domain/cron';
import { jobInputSchema } from '../../src/domain/job';
import {
  describeDelay,
  judgeSlot,
  type SlotEvidence,
  type SlotHold,
  slotsToCatchUp,
} from '../../src/domain/slotRules';
import {
  catchUpSchema,
  isSlot,
  latestSlotAtOrBefore,
  NO_CATCH_UP,
  slotOfFireTime,
  slotsBetween,
} from '../../src/domain/slots';

const fields = (expression: string) => {
  const check = checkCron(expression);
  if (!check.valid) throw new Error(check.error);
  return check.fields;
};
const iso = (dates: Date[]) => dates.map((date) => date.toISOString());
const at = (time: string) => new Date(time);

describe('slot enumeration', () => {
  it('lists the slots after one instant and up to another, inclusive, oldest first, at most a limit', () => {
    const every15 = fields('*/15 * * * *');
    expect(
      iso(slotsBetween(every15, 'UTC', at('2026-06-01T10:00:00Z'), at('2026-06-01T10:45:00Z'), 100)),
    ).toEqual(['2026-06-01T10:15:00.000Z', '2026-06-01T10:30:00.000Z', '2026-06-01T10:45:00.000Z']);
    expect(
      slotsBetween(every15, 'UTC', at('2026-06-01T10:00:00Z'), at('2026-06-01T10:45:00Z'), 2),
    ).toHaveLength(2);
    expect(slotsBetween(every15, 'UTC', at('2026-06-01T10:00:00Z'), at('2026-06-01T10:14:59Z'), 100)).toEqual(
      [],
    );
  });

  describe('Europe/Berlin springs forward (2026-03-29 02:00 CET → 03:00 CEST)', () => {
    it('gives a skipped wall time one slot, right after the jump', () => {
      expect(
        iso(
          slotsBetween(
            fields('30 2 * * *'),
            'Europe/Berlin',
            at('2026-03-28T00:00:00Z'),
            at('2026-03-31T00:00:00Z'),
            10,
          ),
        ),
      ).toEqual([
        '2026-03-28T01:30:00.000Z', // 02:30 CET
        '2026-03-29T01:00:00.000Z', // 03:00 CEST: 02:30 never shows
        '2026-03-30T00:30:00.000Z', // 02:30 CEST
      ]);
    });

    it('gives several skipped wall times a single slot', () => {
      expect(
        iso(
          slotsBetween(
            fields('*/20 2 * * *'),
            'Europe/Berlin',
            at('2026-03-29T00:00:00Z'),
            at('2026-03-29T12:00:00Z'),
            10,
          ),
        ),
      ).toEqual(['2026-03-29T01:00:00.000Z']);
    });
  });

  describe('Europe/Berlin falls back (2026-10-25 03:00 CEST → 02:00 CET)', () => {
    it('gives a repeated wall time one slot, at its first occurrence', () => {
      expect(
        iso(
          slotsBetween(
            fields('30 2 * * *'),
            'Europe/Berlin',
            at('2026-10-24T00:00:00Z'),
            at('2026-10-26T12:00:00Z'),
            10,
          ),
        ),
      ).toEqual([
        '2026-10-24T00:30:00.000Z', // 02:30 CEST
        '2026-10-25T00:30:00.000Z', // 02:30 CEST, the first of the two
        '2026-10-26T01:30:00.000Z', // 02:30 CET
      ]);
    });

    it('maps the second occurrence, where a CronJob fires again, to the slot it repeats', () => {
      const daily = fields('30 2 * * *');
      expect(isSlot(daily, 'Europe/Berlin', at('2026-10-25T00:30:00Z'))).toBe(true);
      expect(isSlot(daily, 'Europe/Berlin', at('2026-10-25T01:30:00Z'))).toBe(false);
      expect(slotOfFireTime(daily, 'Europe/Berlin', at('2026-10-25T01:30:00Z')).toISOString()).toBe(
        '2026-10-25T00:30:00.000Z',
      );
      expect(slotOfFireTime(daily, 'Europe/Berlin', at('2026-10-25T00:30:00Z')).toISOString()).toBe(
        '2026-10-25T00:30:00.000Z',
      );
      // A time that is no slot and repeats none is answered as it is.
      expect(slotOfFireTime(daily, 'Europe/Berlin', at('2026-10-25T09:00:00Z')).toISOString()).toBe(
        '2026-10-25T09:00:00.000Z',
      );
    });
  });

  describe('America/New_York', () => {
    it('skips the repeated half hours of a fall-back (2026-11-01)', () => {
      expect(
        iso(
          slotsBetween(
            fields('*/30 * * * *'),
            'America/New_York',
            at('2026-11-01T04:45:00Z'),
            at('2026-11-01T07:30:00Z'),
            10,
          ),
        ),
      ).toEqual([
        '2026-11-01T05:00:00.000Z',
        '2026-11-01T05:30:00.000Z',
        '2026-11-01T07:00:00.000Z',
        '2026-11-01T07:30:00.000Z',
      ]);
      const repeat = at('2026-11-01T06:30:00Z'); // 01:30 EST, the second pass
      expect(slotOfFireTime(fields('30 1 * * *'), 'America/New_York', repeat).toISOString()).toBe(
        '2026-11-01T05:30:00.000Z',
      );
    });

    it('gives the spring-forward gap one slot (2026-03-08)', () => {
      expect(
        iso(
          slotsBetween(
            fields('30 2 * * *'),
            'America/New_York',
            at('2026-03-07T12:00:00Z'),
            at('2026-03-09T12:00:00Z'),
            10,
          ),
        ),
      ).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    });
  });

  it('lists exactly the fire times that nextFireTime gives one by one, across DST changes', () => {
    const expressions = [
      '* * * * *',
      '*/7 * * * *',
      '30 2 * * *',
      '*/20 1-3 * * *',
      '0 0 * * 0',
      '15 3 1 * *',
    ];
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'];
    // Starting a few hours around the spring-forward and fall-back of 2026 in each zone.
    const starts = [
      '2026-03-08T04:00:00Z',
      '2026-03-28T22:00:00Z',
      '2026-10-04T14:00:00Z',
      '2026-10-24T22:00:00Z',
      '2026-10-31T23:00:00Z',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...expressions),
        fc.constantFrom(...zones),
        fc.constantFrom(...starts),
        fc.integer({ min: 0, max: 6 * 3600 }),
        (expression, zone, start, offsetSeconds) => {
          const after = new Date(Date.parse(start) + offsetSeconds * 1000);
          const until = new Date(after.getTime() + 12 * 3_600_000);
          const expected: string[] = [];
          for (let t = nextFireTime(fields(expression), zone, after); t <= until && expected.length < 120;) {
            expected.push(t.toISOString());
            t = nextFireTime(fields(expression), zone, t);
          }
          expect(iso(slotsBetween(fields(expression), zone, after, until, 120))).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('finds the latest slot at or before an instant, also days later', () => {
    const minutely = fields('* * * * *');
    expect(
      latestSlotAtOrBefore(
        minutely,
        'UTC',
        at('2026-06-01T10:01:00Z'),
        at('2026-06-01T10:30:10Z'),
      ).toISOString(),
    ).toBe('2026-06-01T10:30:00.000Z');
    expect(
      latestSlotAtOrBefore(
        minutely,
        'UTC',
        at('2026-06-01T10:01:00Z'),
        at('2026-06-09T08:00:00Z'),
      ).toISOString(),
    ).toBe('2026-06-09T08:00:00.000Z');
    expect(
      latestSlotAtOrBefore(
        fields('0 0 1 * *'),
        'UTC',
        at('2026-01-01T00:00:00Z'),
        at('2026-06-15T00:00:00Z'),
      ).toISOString(),
    ).toBe('2026-06-01T00:00:00.000Z');
  });
});

describe('judging a slot', () => {
  const slot = at('2026-06-01T10:00:00Z');
  const graceMs = 60_000;
  const none: SlotEvidence = { runs: [], skippedIds: [], claim: null, holds: [] };
  const judge = (evidence: Partial<SlotEvidence>) =>
    judgeSlot(slot, { ...none, ...evidence }, graceMs, 'no leader');
  const run = (executionId: number, startedAt: string) => ({ executionId, startedAt: at(startedAt) });
  const hold = (
    kind: SlotHold['kind'],
    fromAt: string,
    untilAt: string | null,
    reason: string | null = null,
  ) => ({
    kind,
    fromAt: at(fromAt),
    untilAt: untilAt === null ? null : at(untilAt),
    reason,
  });

  it('is ran when its run started within the grace, with the delay', () => {
    expect(judge({ runs: [run(7, '2026-06-01T10:00:00.250Z')] })).toEqual({
      outcome: 'ran',
      executionIds: [7],
      startedAt: at('2026-06-01T10:00:00.250Z'),
      delayMs: 250,
      reason: null,
    });
    expect(judge({ runs: [run(7, '2026-06-01T10:01:00Z')] }).outcome).toBe('ran');
  });

  it('is late when its run started after the grace, saying by how much', () => {
    const judged = judge({ runs: [run(7, '2026-06-01T10:01:00.001Z')] });
    expect(judged.outcome).toBe('late');
    expect(judged.delayMs).toBe(60_001);
    expect(judged.reason).toBe('started 1 min after its time, past its grace of 1 min');
  });

  it('is duplicate when two runs started for it, by executions or by admitted claims', () => {
    const two = judge({ runs: [run(9, '2026-06-01T10:00:02Z'), run(8, '2026-06-01T10:00:01Z')] });
    expect(two).toMatchObject({ outcome: 'duplicate', executionIds: [8, 9], delayMs: 1000 });
    const claim = {
      claimedAt: at('2026-06-01T10:00:03Z'),
      runKey: 'a',
      duplicateKeys: ['b'],
      preventedKeys: [],
    };
    expect(judge({ claim }).outcome).toBe('duplicate');
    expect(judge({ claim }).reason).toContain('allows duplicate slots');
  });

  it('stays ran when a second claimant was refused, naming it', () => {
    const claim = {
      claimedAt: at('2026-06-01T10:00:03Z'),
      runKey: 'job-a',
      duplicateKeys: [],
      preventedKeys: ['job-b'],
    };
    const judged = judge({ claim, runs: [run(5, '2026-06-01T10:00:04Z')] });
    expect(judged).toMatchObject({ outcome: 'ran', executionIds: [5], delayMs: 3000 });
    expect(judged.reason).toBe('a second run for this slot was prevented (run job-b)');
  });

  it('counts a claim as the start of a run not reported yet', () => {
    const claim = {
      claimedAt: at('2026-06-01T10:02:00Z'),
      runKey: 'a',
      duplicateKeys: [],
      preventedKeys: [],
    };
    expect(judge({ claim })).toMatchObject({ outcome: 'late', executionIds: [], delayMs: 120_000 });
  });

  it('is skipped when a skipped row was recorded for it', () => {
    expect(judge({ skippedIds: [4] })).toMatchObject({
      outcome: 'skipped',
      executionIds: [4],
      reason: 'the previous run of this job was still in progress',
    });
  });

  it('is suspended or paused when a hold covers its time, suspended first', () => {
    expect(judge({ holds: [hold('suspended', '2026-06-01T09:00:00Z', null)] })).toMatchObject({
      outcome: 'suspended',
      reason: 'the job was disabled at that time',
    });
    expect(judge({ holds: [hold('paused', '2026-06-01T09:00:00Z', '2026-06-01T10:00:01Z')] }).outcome).toBe(
      'paused',
    );
    expect(
      judge({
        holds: [
          hold('paused', '2026-06-01T09:00:00Z', null),
          hold('suspended', '2026-06-01T09:59:00Z', null, 'why'),
        ],
      }),
    ).toMatchObject({ outcome: 'suspended', reason: 'why' });
  });

  it('is missed when a hold ended at or began after its time, or there is none', () => {
    expect(judge({ holds: [hold('paused', '2026-06-01T09:00:00Z', '2026-06-01T10:00:00Z')] })).toMatchObject({
      outcome: 'missed',
      reason: 'no leader',
    });
    expect(judge({ holds: [hold('suspended', '2026-06-01T10:00:00.001Z', null)] }).outcome).toBe('missed');
    expect(judge({}).outcome).toBe('missed');
  });

  it('lets a run win over a hold: something did run', () => {
    expect(
      judge({ runs: [run(1, '2026-06-01T10:00:00Z')], holds: [hold('paused', '2026-06-01T09:00:00Z', null)] })
        .outcome,
    ).toBe('ran');
  });

  it('writes delays as a person reads them', () => {
    expect([950, 42_000, 185_000, 7_260_000, 3_600_000].map(describeDelay)).toEqual([
      '950 ms',
      '42 s',
      '3 min 5 s',
      '2 h 1 min',
      '1 h',
    ]);
  });
});

describe('catch-up', () => {
  const now = at('2026-06-01T12:00:00Z');
  const missed = ['10:00', '10:59', '11:01', '11:30', '11:59'].map((hm) => at(`2026-06-01T${hm}:00Z`));

  it('runs nothing, the latest, or the latest maxRuns within the window, oldest first', () => {
    expect(slotsToCatchUp(NO_CATCH_UP, missed, now)).toEqual([]);
    const latest = catchUpSchema.parse({ policy: 'latest' });
    expect(iso(slotsToCatchUp(latest, missed, now))).toEqual(['2026-06-01T11:59:00.000Z']);
    const all = catchUpSchema.parse({ policy: 'all' });
    expect(iso(slotsToCatchUp(all, missed, now))).toEqual([
      '2026-06-01T11:01:00.000Z',
      '2026-06-01T11:30:00.000Z',
      '2026-06-01T11:59:00.000Z',
    ]);
    expect(iso(slotsToCatchUp({ ...all, maxRuns: 2 }, missed, now))).toEqual([
      '2026-06-01T11:30:00.000Z',
      '2026-06-01T11:59:00.000Z',
    ]);
    expect(slotsToCatchUp(latest, [], now)).toEqual([]);
  });

  it('validates the policy, naming the field', () => {
    expect(catchUpSchema.parse({ policy: 'all' })).toEqual({
      policy: 'all',
      maxRuns: 10,
      withinSeconds: 3600,
    });
    const problems = [
      { policy: 'some' },
      { policy: 'all', maxRuns: 0 },
      { policy: 'all', maxRuns: 101 },
      { policy: 'all', withinSeconds: 59 },
      { policy: 'all', withinSeconds: 604_801 },
      { policy: 'all', extra: 1 },
    ].map((value) => {
      const result = catchUpSchema.safeParse(value);
      return result.success
        ? null
        : `${result.error.issues[0]!.path.join('.')}: ${result.error.issues[0]!.message}`;
    });
    expect(problems).toEqual([
      'policy: must be one of none, latest, all',
      'maxRuns: must be at least 1',
      'maxRuns: must be at most 100',
      'withinSeconds: must be at least 60',
      'withinSeconds: must be at most 604800 (a week)',
      ': unknown field extra',
    ]);
  });
});

describe('the job fields of the ledger', () => {
  const base = { name: 'j', schedule: '* * * * *', command: 'true' };

  it('default to what every job did before the ledger', () => {
    expect(jobInputSchema.parse(base)).toMatchObject({
      lateAfterSeconds: 60,
      catchUp: null,
      allowDuplicateSlots: false,
    });
    expect(jobInputSchema.parse({ ...base, catchUp: { policy: 'none' } }).catchUp).toBeNull();
    expect(
      jobInputSchema.parse({ ...base, catchUp: { policy: 'latest', withinSeconds: 600 } }).catchUp,
    ).toEqual({
      policy: 'latest',
      maxRuns: 10,
      withinSeconds: 600,
    });
  });

  it('refuses a grace out of range', () => {
    for (const lateAfterSeconds of [-1, 86_401, 1.5, '60']) {
      expect(jobInputSchema.safeParse({ ...base, lateAfterSeconds }).success).toBe(false);
    }
    expect(jobInputSchema.parse({ ...base, lateAfterSeconds: 0 }).lateAfterSeconds).toBe(0);
  });
});
