/**
 * Who runs each attempt in progress, so that a run is closed as interrupted only once its owner is
 * provably gone (runtime/local/runOwners.ts), and never while it is only stalled.
 *
 * - Each process of `crondeck serve` that runs jobs registers, with what tells it apart on its
 *   machine (the kernel's boot, its PID namespace, its PID and start time in clock ticks), and
 *   beats: `heartbeat_at` is the database's time of its latest sign of life.
 * - A running attempt names the process that runs it. Attempts started before this migration name
 *   none.
 */
export const serviceProcessesSchema = `
CREATE TABLE service_processes (
  id            bigserial PRIMARY KEY,
  host          text NOT NULL,
  boot_id       text,
  pid_namespace text,
  pid           integer NOT NULL,
  start_ticks   bigint,
  started_at    timestamptz NOT NULL DEFAULT now(),
  heartbeat_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE executions ADD COLUMN owner_process bigint;
`;
