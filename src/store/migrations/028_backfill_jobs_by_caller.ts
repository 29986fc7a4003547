/**
 * Backfills whose Jobs the caller's own token creates (SERVICE_AUTH=kubernetes on a cluster):
 * `slot_backfills.caller_jobs` is `creating` while the service creates every slot's Job, suspended,
 * as the caller, and `created` once it has; the controller then resumes them, `concurrency` at a
 * time, instead of creating them as itself (so RBAC, admission and the audit log see the person).
 * Null: the controller creates them (token mode, and every backfill recorded before).
 */
export const backfillJobsByCallerSchema = `
ALTER TABLE slot_backfills ADD COLUMN caller_jobs text CHECK (caller_jobs IN ('creating', 'created'));
`;
