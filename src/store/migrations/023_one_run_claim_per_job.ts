/**
 * One run of a job at a time, whichever replica is asked (store/runRequests.ts). A run request is
 * now the job's claim on its one run: kept from the moment run-now is answered until that run has
 * ended, and at most one per job, so that the refusal of a second is decided by the database's
 * unique index, not by what one process holds in memory.
 *
 * - `taken_by`: the process that started the requested run (null while it waits for the leader).
 *   A claim goes with its process's registration: a process judged gone (runOwners.ts) leaves no
 *   claim behind to keep the job from running again.
 * - Requests queued twice by an earlier version are one request.
 */
export const oneRunClaimPerJobSchema = `
DELETE FROM run_requests later
 WHERE EXISTS (SELECT 1 FROM run_requests earlier WHERE earlier.job_id = later.job_id AND earlier.id < later.id);

ALTER TABLE run_requests
  ADD COLUMN taken_by bigint REFERENCES service_processes(id) ON DELETE CASCADE;

CREATE UNIQUE INDEX run_requests_one_per_job ON run_requests (job_id);
`;
