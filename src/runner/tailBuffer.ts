import { tailText } from '../domain/outputTail';

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
