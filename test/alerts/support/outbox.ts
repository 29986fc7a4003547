import type { Queryable } from '../../../src/store/database';
import { eventually } from '../../support/service';

/**
 * Waits until no alert is out for delivery: every claimed row of the outbox has had its answer
 * written back (delivered, failed, or put back for a retry).
 *
 * A receiver holds its request before the service has written the answer down. A test that reads
 * the outbox as soon as the receiver saw the request races that write; one that then moves the
 * clock past the claim's lease hands the same alert to the next poll, and it goes out twice.
 */
export async function untilNoAlertInFlight(db: Queryable): Promise<void> {
  await eventually(async () => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM alert_outbox WHERE state = 'pending' AND locked_until IS NOT NULL`,
    );
    return rows[0]!.n === 0;
  });
}
