import type { Pool } from 'pg';
import type { ListChanges } from '../store/listChangeFeed';
import { listSlotsJson } from '../store/slots';
import { type ReadFreshness, VersionedRenders } from './versionedRenders';

/**
 * Pages kept; past this, the one rendered longest ago is dropped. A page is at most 1000 slots
 * (about 150 kB), so the pages kept stay under 10 MB; the jobs list's strips (16 slots, one page per
 * job on screen) fit many times over.
 */
const MAX_PAGES_KEPT = 64;

export interface SlotPageRange {
  from: Date | null;
  to: Date | null;
  limit: number;
}

/**
 * Pages of a job's slot ledger (`GET /api/jobs/:id/slots`) as the database renders them, reused
 * while the slot pages' version is unchanged: it changes with every statement that writes a slot
 * and with every job created or deleted (migration 018, triggers in the writing transaction,
 * whichever process wrote), so a kept page is exactly what a fresh read would answer. A request
 * for a kept page costs one read of that version, shared with the requests that arrive meanwhile
 * (for any page), instead of the page's statement, which renders up to 1000 slots each time.
 */
export class SlotPages {
  private readonly renders: VersionedRenders<Buffer | null>;

  constructor(
    private readonly pool: Pool,
    changes: ListChanges | null,
  ) {
    this.renders = new VersionedRenders({ list: 'slots', pool, changes, maxKeys: MAX_PAGES_KEPT });
  }

  /** The page's JSON, or null when the job does not exist. */
  get(jobId: number, range: SlotPageRange, freshness: ReadFreshness = 'current'): Promise<Buffer | null> {
    const key = `${jobId}/${range.from?.getTime() ?? ''}/${range.to?.getTime() ?? ''}/${range.limit}`;
    return this.renders.get(
      key,
      async () => {
        const { body, version } = await listSlotsJson(this.pool, jobId, range);
        return { value: body === null ? null : Buffer.from(body), version };
      },
      0,
      freshness,
    );
  }
}
