/**
 * The whole job list's answer in parts that are written one after the other, never joined: the
 * list of thousands of jobs may be a hundred megabytes (issue 38: 112 MB for 1,500 jobs with every
 * field as long as allowed), and a rendering as one string, then one buffer, held two copies of it,
 * and each rendering after a change two more while the answers of the last were still being sent.
 *
 * Jobs are rendered into groups by id (`IDS_PER_GROUP` consecutive ids each). A group whose bytes
 * are what they were in the last rendering is that rendering's buffer, not a copy: after one job
 * changes, the new rendering shares every other group with the one still being sent.
 */

/** Ids per group: small enough that a change copies little, large enough that an answer is few writes. */
const IDS_PER_GROUP = 32;

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = 0x2c;

/**
 * Renders the list as the parts of its JSON array: `[`, the groups (`,{job},{job}…`, the first
 * without its comma), `]`. `renderJob` must give a job's JSON, the same for the same job.
 */
export class JobListBodies<View extends { id: number }> {
  /** The last rendering's groups, by their block of ids. */
  private last = new Map<number, Buffer>();

  constructor(private readonly renderJob: (view: View) => string) {}

  /** `views` in id order, as the list reads them. */
  render(views: readonly View[]): Buffer[] {
    const parts: Buffer[] = [OPEN];
    const kept = new Map<number, Buffer>();
    let scratch = Buffer.allocUnsafeSlow(64 * 1024);
    for (let i = 0; i < views.length;) {
      const key = Math.floor(views[i]!.id / IDS_PER_GROUP);
      let length = 0;
      for (; i < views.length && Math.floor(views[i]!.id / IDS_PER_GROUP) === key; i++) {
        const json = this.renderJob(views[i]!);
        // A UTF-16 code unit takes at most three bytes of UTF-8.
        const needed = length + 1 + json.length * 3;
        if (needed > scratch.length) {
          const grown = Buffer.allocUnsafeSlow(Math.max(needed, scratch.length * 2));
          scratch.copy(grown, 0, 0, length);
          scratch = grown;
        }
        scratch[length++] = COMMA;
        length += scratch.write(json, length);
      }
      let group = this.last.get(key);
      if (!group?.equals(scratch.subarray(0, length))) {
        // A buffer of its own, not a slice of the pool that small buffers share: a group kept for
        // long must not keep the others' memory.
        group = Buffer.allocUnsafeSlow(length);
        scratch.copy(group, 0, 0, length);
      }
      kept.set(key, group);
      // The first job goes without the comma before it.
      parts.push(parts.length === 1 ? group.subarray(1) : group);
    }
    parts.push(CLOSE);
    this.last = kept;
    return parts;
  }
}
