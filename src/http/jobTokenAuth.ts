import type { RequestHandler } from 'express';
import { isReportTokenOf } from '../domain/reportToken';
import { HttpError } from '../httpKit/httpError';
import { parsePathId } from '../httpKit/validate';

/**
 * What a pod's calls about job `:id` present: the job's own report token (never the API token: a
 * pod holds only its job's Secret). Checked before the body is read, so a caller without it cannot
 * make the service parse a body at all.
 */
export function requireJobToken(reportSecret: string | null, what: string): RequestHandler {
  return (req, _res, next) => {
    const jobId = parsePathId(req.params);
    if (!reportSecret) {
      throw new HttpError(403, `${what} are not accepted: the service has no SERVICE_REPORT_SECRET`);
    }
    const presented = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!presented) throw new HttpError(403, 'missing report token: send Authorization: Bearer <token>');
    if (!isReportTokenOf(reportSecret, jobId, presented)) {
      throw new HttpError(403, `the report token is not valid for job ${jobId}`);
    }
    next();
  };
}
