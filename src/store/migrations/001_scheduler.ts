/** Jobs, their execution history, the durable execution counters and the scheduler switch. */
export const schedulerSchema = `
CREATE TABLE jobs (
  id            serial PRIMARY KEY,
  name          text NOT NULL UNIQUE,
  schedule      text NOT NULL,
  command       text NOT NULL,
  timeout_s     integer NOT NULL DEFAULT 0,
  retry         jsonb,
  description   text,
  tags          jsonb NOT NULL DEFAULT '[]',
  timezone      text,
  enabled       boolean NOT NULL DEFAULT true,
  source        text NOT NULL DEFAULT 'api',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  last_run_at   timestamptz,
  last_status   text
);

CREATE TABLE executions (
  id           bigserial PRIMARY KEY,
  job_id       integer NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  job_name     text NOT NULL,
  status       text NOT NULL CHECK (status IN ('running', 'success', 'failed', 'timeout', 'skipped')),
  started_at   timestamptz NOT NULL,
  finished_at  timestamptz,
  duration_ms  integer,
  exit_code    integer,
  stdout       text NOT NULL DEFAULT '',
  stderr       text NOT NULL DEFAULT '',
  attempt      integer NOT NULL DEFAULT 0,
  report_key   text UNIQUE
);
-- The list is newest first, optionally for one job; both orders are served by an index scan.
CREATE INDEX executions_newest ON executions (started_at DESC, id DESC);
CREATE INDEX executions_job_newest ON executions (job_id, started_at DESC, id DESC);
CREATE INDEX executions_running ON executions (status) WHERE status = 'running';

-- True counters for service_executions_total: bumped with every recorded execution, never lowered
-- when history is pruned.
CREATE TABLE execution_counters (
  status  text PRIMARY KEY,
  total   bigint NOT NULL DEFAULT 0
);
INSERT INTO execution_counters (status) VALUES ('success'), ('failed'), ('timeout'), ('skipped');

CREATE TABLE scheduler_state (
  id            integer PRIMARY KEY CHECK (id = 1),
  paused        boolean NOT NULL DEFAULT false,
  paused_until  timestamptz
);
INSERT INTO scheduler_state (id) VALUES (1);
`;
