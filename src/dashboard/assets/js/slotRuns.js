// How the runs behind slots ended. The ledger's `ran` says only that a run started in time, not
// how it ended: a slot whose run failed must not be drawn as a success, so the page looks up the
// status of each slot's latest execution (its last attempt) among the job's executions.
// Contract: GET /api/executions?jobId=&limit= (finished ones, newest first, without output);
// GET /api/executions/:id (one, with its output: used only for runs older than that list).

import { api } from './api.js';

/** How many of the job's latest executions one look-up reads: a strip's 16 slots and retries. */
const RECENT_EXECUTIONS = 100;
/** Status of finished executions by id: a finished execution's status never changes. */
const finished = new Map();
/** A tab left open for weeks keeps only the latest: older ones are looked up again if shown. */
const MAX_REMEMBERED = 5_000;

function keep(id, status) {
  finished.set(id, status);
  if (finished.size > MAX_REMEMBERED) finished.delete(finished.keys().next().value);
}

/** The execution that says how a slot's run ended: its latest, the last attempt of its last run. */
function latestExecutionId(slot) {
  return slot.executionIds?.length ? Math.max(...slot.executionIds) : null;
}

function remember(execution) {
  if (execution.status !== 'running') keep(execution.id, execution.status);
}

/**
 * The slots, each with `runStatus`: the status of its latest execution (`success`, `failed`,
 * `timeout`, …), or null when it has none, is still running, or cannot be read. With `exact`,
 * runs older than the job's latest executions are read one by one (the job page's older pages).
 * A failing look-up leaves `runStatus` null: the slots themselves are still right.
 */
export async function withRunStatus(jobId, slots, { exact = false } = {}) {
  const unknown = () => slots.map(latestExecutionId).filter((id) => id !== null && !finished.has(id));
  try {
    if (unknown().length > 0) {
      for (const execution of await api.listExecutions({ jobId, limit: RECENT_EXECUTIONS })) {
        remember(execution);
      }
    }
    if (exact) {
      await Promise.all(
        unknown().map(async (id) => {
          try {
            remember(await api.getExecution(id));
          } catch (error) {
            // Gone (pruned): there is nothing to tell, and nothing to ask for again.
            if (error.status === 404) keep(id, null);
          }
        }),
      );
    }
  } catch {
    // Drawn as the ledger says, without the run's outcome.
  }
  return slots.map((slot) => ({ ...slot, runStatus: finished.get(latestExecutionId(slot)) ?? null }));
}
