import {
  ContainerLog,
  ContainerLogWriter,
  LogReader,
  MAX_LOG_RECORD_BYTES,
  type LogReadOptions,
} from '../support/kube/containerLogs';

/**
 * The stand-in container runtime's log and the kubelet's reading of it. Beyond the recordings (no
 * kubelet there): the rules are containerd's (records per line, 16 KiB partial records, an
 * unterminated last line kept as written) and the kubelet's ReadLogs (tail in records, since,
 * timestamps once per line, limitBytes counting what is written).
 */

const T0 = new Date('2026-11-23T10:00:00.000Z');

function writerAt(times: Date[]): { log: ContainerLog; writer: ContainerLogWriter } {
  const log = new ContainerLog();
  let next = 0;
  const writer = new ContainerLogWriter(log, () => times[Math.min(next++, times.length - 1)]!);
  return { log, writer };
}

function read(log: ContainerLog, options: Partial<LogReadOptions>, now = T0): string {
  const out: Buffer[] = [];
  new LogReader({ timestamps: false, follow: false, ...options }, now, (b) => out.push(b)).start(log.records);
  return Buffer.concat(out).toString();
}

describe('the runtime log of a container and the kubelet reading it (upstream rules, not recorded)', () => {
  test('lines of stdout and stderr interleave in the order they end; a split line is one line', () => {
    const { log, writer } = writerAt([T0]);
    writer.write('stdout', Buffer.from('one\ntw'));
    writer.write('stderr', Buffer.from('err one\n'));
    writer.write('stdout', Buffer.from('o\nthr'));
    writer.write('stderr', Buffer.from('err two\n'));
    writer.write('stdout', Buffer.from('ee\nno newline'));
    writer.end();
    expect(log.records.map((r) => `${r.stream}:${r.content.toString()}:${r.partial}`)).toEqual([
      'stdout:one\n:false',
      'stderr:err one\n:false',
      'stdout:two\n:false',
      'stderr:err two\n:false',
      'stdout:three\n:false',
      'stdout:no newline:true',
    ]);
    expect(log.ended).toBe(true);
    expect(read(log, {})).toBe('one\nerr one\ntwo\nerr two\nthree\nno newline');
  });

  test('a line over 16 KiB is cut into partial records, read back whole with one timestamp', () => {
    const { log, writer } = writerAt([T0]);
    const long = 'x'.repeat(MAX_LOG_RECORD_BYTES * 2 + 5);
    writer.write('stdout', Buffer.from(`${long}\nshort\n`));
    writer.end();
    expect(log.records.map((r) => [r.content.length, r.partial])).toEqual([
      [MAX_LOG_RECORD_BYTES, true],
      [MAX_LOG_RECORD_BYTES, true],
      [6, false],
      [6, false],
    ]);
    expect(read(log, {})).toBe(`${long}\nshort\n`);
    expect(read(log, { timestamps: true })).toBe(
      `2026-11-23T10:00:00.000000000Z ${long}\n2026-11-23T10:00:00.000000000Z short\n`,
    );
  });

  test('tailLines counts records from the end, limitBytes cuts what is written, timestamps included', () => {
    const { log, writer } = writerAt([T0]);
    writer.write('stdout', Buffer.from('a\nb\nc\n'));
    writer.end();
    expect(read(log, { tailLines: 2 })).toBe('b\nc\n');
    expect(read(log, { tailLines: 0 })).toBe('');
    expect(read(log, { tailLines: 10 })).toBe('a\nb\nc\n');
    expect(read(log, { limitBytes: 3 })).toBe('a\nb');
    expect(read(log, { limitBytes: 10, timestamps: true })).toBe('2026-11-23');
    expect(read(log, { tailLines: 1, timestamps: true })).toBe('2026-11-23T10:00:00.000000000Z c\n');
  });

  test('sinceSeconds skips the records read before now minus that many seconds', () => {
    const at = (s: number) => new Date(T0.getTime() + s * 1000);
    const { log, writer } = writerAt([at(0), at(10), at(20)]);
    writer.write('stdout', Buffer.from('early\n'));
    writer.write('stdout', Buffer.from('middle\n'));
    writer.write('stdout', Buffer.from('late\n'));
    writer.end();
    expect(read(log, { sinceSeconds: 25 }, at(30))).toBe('middle\nlate\n');
    expect(read(log, { sinceSeconds: 15 }, at(30))).toBe('late\n');
    expect(read(log, { sinceSeconds: 5 }, at(30))).toBe('');
    // Tail picks the records first, since filters them (ReadLogs seeks, then skips).
    expect(read(log, { sinceSeconds: 15, tailLines: 2 }, at(30))).toBe('late\n');
  });

  test('follow: the reader takes each new record until the byte limit', () => {
    const { log, writer } = writerAt([T0]);
    writer.write('stdout', Buffer.from('first\n'));
    const out: string[] = [];
    const reader = new LogReader({ timestamps: false, follow: true, limitBytes: 12 }, T0, (b) =>
      out.push(b.toString()),
    );
    expect(reader.start(log.records)).toBe(false);
    log.on('record', (record) => reader.next(record));
    writer.write('stdout', Buffer.from('second\nthird\n'));
    expect(out.join('')).toBe('first\nsecond');
  });
});
