/**
 * How much of a command's output is kept: the last 1 MiB of each stream (the end of a log is where
 * the error is), after a line saying how many bytes came before. The runners cut what they read
 * to it, and every recorded execution is held to it again, whoever sent the output (a pod's report
 * is only as bounded as its sender made it).
 */
export const OUTPUT_LIMIT_BYTES = 1024 * 1024;

const DROPPED_NOTE = /^\[\.\.\. (\d+) bytes of earlier output dropped \.\.\.\]\n/;

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

/**
 * `output` held to the last `limitBytes` bytes of UTF-8, after the line that says how many were
 * dropped; output within the bound is kept as it is. Output that a runner cut already keeps its
 * line, whose count then grows by what is cut here.
 */
export function boundedOutput(output: string, limitBytes = OUTPUT_LIMIT_BYTES): string {
  // A UTF-16 unit takes at most three bytes of UTF-8: short output needs no count.
  if (output.length * 3 <= limitBytes) return output;
  const note = DROPPED_NOTE.exec(output);
  const body = Buffer.from(note ? output.slice(note[0].length) : output, 'utf8');
  if (body.length <= limitBytes) return output;
  const dropped = body.length - limitBytes;
  return tailText(body.subarray(dropped), dropped + (note ? Number(note[1]) : 0));
}
