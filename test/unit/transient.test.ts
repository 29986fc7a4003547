import {
  isTransactionConflict,
  isTransientDatabaseError,
  retryWhileUnavailable,
} from '../../src/store/transient';

describe('retryWhileUnavailable', () => {
  const unavailable = Object.assign(new Error('terminating connection due to administrator command'), {
    code: '57P01',
  });
  const noSleep = async () => undefined;

  it('retries transient failures until the work succeeds', async () => {
    let calls = 0;
    const result = await retryWhileUnavailable(
      async () => {
        calls++;
        if (calls < 3) throw unavailable;
        return 'done';
      },
      { budgetMs: 60_000, sleep: noSleep },
    );
    expect([result, calls]).toEqual(['done', 3]);
  });

  it('runs a transaction again after a deadlock or a serialization failure', async () => {
    const conflicts = ['40P01', '40001'].map((code) => Object.assign(new Error('conflict'), { code }));
    let calls = 0;
    const result = await retryWhileUnavailable(
      async () => {
        const conflict = conflicts[calls++];
        if (conflict) throw conflict;
        return 'recorded';
      },
      { budgetMs: 60_000, sleep: noSleep },
    );
    expect([result, calls]).toEqual(['recorded', 3]);
    expect(conflicts.every(isTransactionConflict)).toBe(true);
    expect(isTransactionConflict(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
  });

  it('throws other errors at once', async () => {
    const duplicate = Object.assign(new Error('duplicate key'), { code: '23505' });
    let calls = 0;
    await expect(
      retryWhileUnavailable(
        async () => {
          calls++;
          throw duplicate;
        },
        { budgetMs: 60_000, sleep: noSleep },
      ),
    ).rejects.toBe(duplicate);
    expect(calls).toBe(1);
  });

  it('classifies connection errors as transient', () => {
    expect(isTransientDatabaseError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('x'), { code: '22P02' }))).toBe(false);
  });
});
