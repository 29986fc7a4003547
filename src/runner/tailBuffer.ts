/**
 * Collects a stream's bytes up to a bound, keeping the tail when the output is larger: the end of
 * a log is where the error is. Memory stays bounded at about twice the limit however much a
 * command prints.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  private dropped = 0;

  constructor(private readonly limitBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held > this.limitBytes * 2) this.compact();
  }

  /** The kept text; when bytes were dropped, a first line says how many. */
  text(): string {
    this.compact();
    return tailText(Buffer.concat(this.chunks), this.dropped);
  }

  private compact(): void {
    if (this.held <= this.limitBytes) return;
    const all = Buffer.concat(this.chunks);
    const excess = all.length - this.limitBytes;
    this.dropped += excess;
    this.chunks = [all.subarray(excess)];
    this.held = this.limitBytes;
  }
}

/**
 * The last bytes of an output as text, after a line saying how many bytes came before them (when
 * any did).
 */
export function tailText(tail: Buffer, droppedBytes: number): string {
  if (droppedBytes === 0) return tail.toString('utf8');
  // The cut may fall inside a multi-byte character: skip its continuation bytes.
  let start = 0;
  while (start < tail.length && start < 3 && (tail[start]! & 0xc0) === 0x80) start++;
  return `[... ${droppedBytes + start} bytes of earlier output dropped ...]\n${tail.subarray(start).toString('utf8')}`;
}
