import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The token a job's pods report with: an HMAC of the job id under the service's report secret
 * (`SERVICE_REPORT_SECRET`). It is valid for that one job only, so a pod (or whoever reads its
 * Secret) can report runs of its own job and of no other. Nothing is stored: the service recomputes
 * the token from the id it is given.
 */
export function reportTokenFor(secret: string, jobId: number): string {
  return createHmac('sha256', secret).update(`crondeck-report:v1:${jobId}`).digest('hex');
}

/** Constant-time check of a presented token against the one `jobId` should have. */
export function isReportTokenOf(secret: string, jobId: number, presented: string): boolean {
  const expected = Buffer.from(reportTokenFor(secret, jobId));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
