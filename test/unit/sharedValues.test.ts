import { V1EnvVar } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SharedValues } from '../../src/controller/runtime/sharedValues';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');

/** What two watch events bring: the same content, parsed apart. */
const parsed = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const podEnvVar = {
  name: 'POD_NAME',
  valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } },
};

describe('SharedValues', () => {
  it('gives equal small parts of two objects one frozen copy, and keeps what differs apart', () => {
    const pool = new SharedValues();
    const script = 'echo '.repeat(60);
    const first = pool.share(parsed({ script, env: [podEnvVar, { name: 'JOB_ID', value: '1' }] }));
    const second = pool.share(parsed({ script, env: [podEnvVar, { name: 'JOB_ID', value: '2' }] }));

    expect(second.env[0]).toBe(first.env[0]);
    expect(Object.isFrozen(first.env[0])).toBe(true);
    const fieldRef = (first.env[0] as typeof podEnvVar).valueFrom.fieldRef;
    expect(fieldRef).toEqual(podEnvVar.valueFrom.fieldRef);
    expect(Object.isFrozen(fieldRef)).toBe(true);
    expect(second.env[1]).not.toBe(first.env[1]);
    expect(second.env[1]).toEqual({ name: 'JOB_ID', value: '2' });
    expect(first).toEqual({ script, env: [podEnvVar, { name: 'JOB_ID', value: '1' }] });
    // A container holding a part that differs is each object's own; one holding a long part can
    // still be changed.
    expect(second.env).not.toBe(first.env);
    expect(Object.isFrozen(second)).toBe(false);
  });

  it('shares nothing whose content a copy would not keep: key order, undefined fields, dates', () => {
    const pool = new SharedValues();
    const ab = pool.share({ a: '1', b: '2' });
    const ba = pool.share({ b: '2', a: '1' });
    expect(ba).not.toBe(ab);
    expect(Object.keys(ba)).toEqual(['b', 'a']);

    const withUndefined = pool.share({ a: '1', b: '2', c: undefined });
    expect(withUndefined).not.toBe(ab);
    expect('c' in withUndefined).toBe(true);

    const when = new Date('2026-11-25T00:00:00Z');
    const first = pool.share({ at: when });
    const second = pool.share({ at: new Date(when) });
    expect(second).not.toBe(first);
    expect(second.at).toBeInstanceOf(Date);
  });

  it("keeps client-node's model classes, sharing only copies of the same class", () => {
    const pool = new SharedValues();
    const model = (value: string) => Object.assign(new V1EnvVar(), { name: 'JOB_ID', value });
    const first = pool.share([model('1')]);
    const second = pool.share([model('1')]);
    const plain = pool.share([{ name: 'JOB_ID', value: '1' }]);
    expect(second[0]).toBe(first[0]);
    expect(second[0]).toBeInstanceOf(V1EnvVar);
    expect(plain[0]).not.toBe(first[0]);
    expect(plain[0]).not.toBeInstanceOf(V1EnvVar);
  });

  it('leaves long parts unshared and starts over once full, so what it keeps is bounded', () => {
    const pool = new SharedValues();
    const long = { command: ['sh', '-c', 'x'.repeat(300)] };
    expect(pool.share(parsed(long))).not.toBe(pool.share(parsed(long)));

    const shared = pool.share(parsed(podEnvVar));
    for (let id = 0; id < 25_000; id++) {
      pool.share({ name: 'JOB_ID', value: String(id) });
      // What every object holds outlives the turns of the pool; what one object held does not.
      if (id % 100 === 0) expect(pool.share(parsed(podEnvVar))).toBe(shared);
    }
    expect(pool.size).toBeLessThanOrEqual(20_000);
  });

  it('keeps one copy of a string that objects parsed apart hold, where no part is shared', async () => {
    // Strings have no identity a test can see (=== compares content): what each copy costs is
    // read off the heap of a process of its own (the test runner's own heap moves by more).
    const grown = async (how: 'apart' | 'pooled') => {
      const { stdout } = await run(process.execPath, [
        '--expose-gc',
        '-r',
        join(ROOT, 'test/support/registerTypeScript.js'),
        join(ROOT, 'test/support/sharedValuesHeapProbe.ts'),
        how,
      ]);
      const probe = JSON.parse(stdout) as { grown: number; kept: number };
      expect(probe.kept).toBe(20_000);
      return probe.grown;
    };
    const [apart, pooled] = [await grown('apart'), await grown('pooled')];
    // 20,000 copies of a 180-character string are 3.6 MB of the first; one copy, none of the second.
    expect(apart - pooled).toBeGreaterThan(3_000_000);
  }, 30_000);
});
