import type { AttemptReportBody } from '../domain/attemptReport';
import { type ReportClient, ReportRefusedError } from './reportClient';

/** The fields a report may carry that a service older than the runner may not know. */
export type OptionalReportFields = Pick<AttemptReportBody, 'scheduledAt' | 'trigger' | 'reason'>;

/**
 * Sends a report together with fields newer than some services: one that refuses a field it does
 * not know (400 `unknown field …`, an upgrade under way) gets the report again without it, so the
 * attempt still counts. Any other refusal is the caller's to handle.
 */
export async function sendWithOptionalFields(
  client: ReportClient,
  body: AttemptReportBody,
  optional: OptionalReportFields,
): Promise<void> {
  const extras: Record<string, unknown> = Object.fromEntries(
    Object.entries(optional).filter(([, value]) => value !== undefined),
  );
  for (;;) {
    try {
      await client.send({ ...body, ...extras });
      return;
    } catch (error) {
      const refused = unknownFieldsOf(error).filter((name) => name in extras);
      if (refused.length === 0) throw error;
      for (const name of refused) delete extras[name];
    }
  }
}

/** The fields a 400 names as unknown (`unknown field a, b`), or none. */
function unknownFieldsOf(error: unknown): string[] {
  if (!(error instanceof ReportRefusedError) || error.status !== 400) return [];
  const listed = /unknown field ([A-Za-z0-9_]+(?:, [A-Za-z0-9_]+)*)/.exec(error.message)?.[1];
  return listed ? listed.split(', ') : [];
}
