import { EventEmitter } from 'node:events';

/**
 * What the stand-in kubelet's container runtime keeps of a container's output: one log per
 * container instance (containerID), in the CRI log format the runtime writes and the kubelet
 * reads back for pods/log. None of this is in the recorded transcripts (they had no kubelet): the
 * rules are upstream's, containerd's pkg/cri/io/logger.go (writing) and the kubelet's
 * pkg/kubelet/kuberuntime/logs/logs.go (reading).
 *
 * The runtime reads each stream of the process line by line and appends a record per line to one
 * file: stdout and stderr interleave in the order their lines end. A line longer than 16 KiB
 * (containerd's max_container_log_line_size) is cut into partial records, and a last line the
 * process left unterminated is a partial record too; the kubelet gives back exactly the bytes
 * written.
 */

export type LogStream = 'stdout' | 'stderr';

export interface LogRecord {
  /** When the runtime read the line (the node's clock: here the emulator's). */
  time: Date;
  stream: LogStream;
  /** The bytes, with the line's newline unless the record is partial. */
  content: Buffer;
  partial: boolean;
}

/** containerd's default max_container_log_line_size. */
export const MAX_LOG_RECORD_BYTES = 16 * 1024;

/** The log of one container instance. `ended` once its process and its pipes are done. */
export class ContainerLog extends EventEmitter<{ record: [LogRecord]; end: [] }> {
  readonly records: LogRecord[] = [];
  ended = false;

  append(record: LogRecord): void {
    this.records.push(record);
    this.emit('record', record);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.emit('end');
  }
}

/** Turns the chunks a process writes into records, as the runtime's log redirection does. */
export class ContainerLogWriter {
  private readonly pending: Record<LogStream, Buffer> = {
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
  };

  constructor(
    readonly log: ContainerLog,
    private readonly now: () => Date,
  ) {}

  write(stream: LogStream, chunk: Buffer): void {
    let buffered = Buffer.concat([this.pending[stream], chunk]);
    for (let eol = buffered.indexOf(10); eol >= 0; eol = buffered.indexOf(10)) {
      this.record(stream, buffered.subarray(0, eol + 1), false);
      buffered = buffered.subarray(eol + 1);
    }
    while (buffered.length > MAX_LOG_RECORD_BYTES) {
      this.record(stream, buffered.subarray(0, MAX_LOG_RECORD_BYTES), true);
      buffered = buffered.subarray(MAX_LOG_RECORD_BYTES);
    }
    this.pending[stream] = Buffer.from(buffered);
  }

  /** The process is gone and its pipes closed: what is left of a line is a partial record. */
  end(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.pending[stream].length) this.record(stream, this.pending[stream], true);
      this.pending[stream] = Buffer.alloc(0);
    }
    this.log.end();
  }

  private record(stream: LogStream, bytes: Buffer, partial: boolean): void {
    // A record that holds a whole line of more than 16 KiB is split too (newline in the last part).
    for (let at = 0; at < bytes.length; at += MAX_LOG_RECORD_BYTES) {
      const part = bytes.subarray(at, at + MAX_LOG_RECORD_BYTES);
      const last = at + MAX_LOG_RECORD_BYTES >= bytes.length;
      this.log.append({ time: this.now(), stream, content: Buffer.from(part), partial: partial || !last });
    }
  }
}

/** Every container instance's log the stand-in kubelet keeps, by pod uid and containerID. */
export class ContainerLogStore {
  private readonly byPod = new Map<string, Map<string, ContainerLog>>();

  /** A new instance's log (the runtime creates the file when it creates the container). */
  open(podUid: string, containerID: string): ContainerLog {
    let logs = this.byPod.get(podUid);
    if (!logs) this.byPod.set(podUid, (logs = new Map()));
    const log = new ContainerLog();
    logs.set(containerID, log);
    return log;
  }

  find(podUid: string, containerID: string): ContainerLog | undefined {
    return this.byPod.get(podUid)?.get(containerID);
  }

  /** The pod is gone: the kubelet removes its containers and their logs. */
  forgetPod(podUid: string): void {
    this.byPod.delete(podUid);
  }
}

/** PodLogOptions as the kubelet applies them (kuberuntime/logs NewLogOptions). */
export interface LogReadOptions {
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  timestamps: boolean;
  follow: boolean;
}

/** The kubelet's timeFormatOut: RFC 3339 with nine fraction digits, in UTC here. */
function logTimestamp(t: Date): string {
  return t.toISOString().replace(/(\.\d{3})Z$/, '$1000000Z');
}

/**
 * Reads a log as the kubelet's ReadLogs does: the last `tailLines` records (counted in records, as
 * the kubelet counts lines of the file), those older than `sinceSeconds` before `now` skipped, a
 * timestamp before each record that starts a line, and `limitBytes` counting what is written
 * (timestamps included; the record that reaches it is cut). `onto` receives each piece; the answer
 * says whether the byte limit ended the read. With `follow`, `tailLines` only picks where to start.
 */
export class LogReader {
  private remain: number;
  private newLine = true;
  private readonly since?: number;
  private left: number;

  constructor(
    private readonly options: LogReadOptions,
    now: Date,
    private readonly onto: (bytes: Buffer) => void,
  ) {
    this.remain = options.limitBytes ?? Infinity;
    if (options.sinceSeconds !== undefined) this.since = now.getTime() - options.sinceSeconds * 1000;
    this.left = options.tailLines !== undefined && !options.follow ? options.tailLines : Infinity;
  }

  /** The records already there; whether reading is over (the byte or line limit reached). */
  start(records: LogRecord[]): boolean {
    const tail = this.options.tailLines;
    const from = tail === undefined ? 0 : Math.max(0, records.length - tail);
    for (const record of records.slice(from)) if (this.next(record)) return true;
    return this.left <= 0;
  }

  /** One more record; whether reading is over. */
  next(record: LogRecord): boolean {
    if (this.left <= 0 || this.remain <= 0) return true;
    if (this.since === undefined || record.time.getTime() >= this.since) {
      let line = record.content;
      if (this.options.timestamps && this.newLine) {
        line = Buffer.concat([Buffer.from(`${logTimestamp(record.time)} `), line]);
      }
      if (line.length > this.remain) line = line.subarray(0, this.remain);
      this.onto(line);
      this.remain -= line.length;
    }
    this.left -= 1;
    this.newLine = !record.partial;
    return this.remain <= 0 || this.left <= 0;
  }
}
