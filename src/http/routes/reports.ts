import express, { type ErrorRequestHandler, Router } from 'express';
import { attemptReportSchema, reportTimeProblem } from '../../domain/attemptReport';
import type { Clock } from '../../domain/clock';
import { DomainError } from '../../domain/errors';
import { boundedField } from '../../logging/boundedField';
import type { Logger } from '../../logging/logger';
import { OncePerKey } from '../../logging/oncePerKey';
import type { ReportIngest } from '../../scheduling/reportIngest';
import { badRequest } from '../../httpKit/httpError';
import { parseOrThrow, parsePathId } from '../../httpKit/validate';
import { STATUS_OF_KIND } from '../errors';
import { requireJobToken } from '../jobTokenAuth';

/**
 * Largest report accepted. Each output tail is at most 1 MiB of text, but JSON escapes control
 * bytes (up to six characters for one), and the runner shortens the tails until its report fits.
 */
const REPORT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * How refusals are logged: each kind (status, job, reason) once per ten minutes, at most 64 kinds
 * in that time. Anyone who can reach the service can send reports that are refused; a pod whose
 * reports are refused keeps sending them (and loses its runs), so its refusal is logged again in
 * the next period, with the count of the refusals that were not.
 */
const REFUSAL_LOG = { maxKeys: 64, renewAfterMs: 10 * 60 * 1000 };

/**
 * `POST /api/jobs/:id/reports`: a pod reports one attempt of job `:id`, authenticated by the job's
 * own report token (never the API token: a pod holds only its job's Secret). The token is checked
 * before the body is read, so a caller without it cannot make the service parse megabytes. Refusals
 * (400, 403, 404, 409, 413) are logged, a pod whose reports are refused losing runs, but boundedly
 * (REFUSAL_LOG, fields cut short): the caller may have no token at all.
 */
export function reportsRouter(options: {
  ingest: ReportIngest;
  reportSecret: string | null;
  logger: Logger;
  clock: Clock;
}): Router {
  const { ingest, reportSecret, logger, clock } = options;
  const router = Router({ mergeParams: true });

  const authenticate = requireJobToken(reportSecret, 'reports');

  router.post(
    '/',
    authenticate,
    express.json({ limit: REPORT_BODY_LIMIT_BYTES, strict: false }),
    async (req, res) => {
      const jobId = parsePathId(req.params);
      const report = parseOrThrow(attemptReportSchema, req.body);
      const timeProblem = reportTimeProblem(report, clock.now());
      if (timeProblem) throw badRequest(timeProblem);
      const outcome = await ingest.record(jobId, report);
      if ('duplicate' in outcome) {
        res.status(200).json({ duplicate: true });
        return;
      }
      res.status(201).json({ id: outcome.recorded.id, duplicate: false });
    },
  );

  const refusals = new OncePerKey(REFUSAL_LOG);
  const logRefusal: ErrorRequestHandler = (error, req, _res, next) => {
    const jobId = boundedField(req.params.id);
    const status =
      error instanceof DomainError ? STATUS_OF_KIND[error.kind] : (error as { status?: number }).status;
    const reason = boundedField((error as Error).message);
    const admitted = refusals.admit(`${status} ${jobId} ${reason}`, clock.now().getTime());
    if (admitted) {
      logger.warn('pod report refused', {
        jobId,
        status,
        reason,
        remoteAddress: req.socket.remoteAddress,
        ...(admitted.notLogged > 0 ? { notLogged: admitted.notLogged } : {}),
      });
    }
    next(error);
  };
  router.use(logRefusal);
  return router;
}
