/** Alert configuration per job, and the durable outbox of alerts waiting to be delivered. */
export const alertsSchema = `
-- One row per job that has alerts. source: 'api' (PUT) or 'config' (the config file's shortcuts,
-- which the file may take back at the next start).
CREATE TABLE alert_configs (
  job_id      integer PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  webhooks    jsonb NOT NULL DEFAULT '[]',
  emails      jsonb NOT NULL DEFAULT '[]',
  source      text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'config')),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per alert and destination, written in the transaction that records the execution.
-- No foreign keys: the row carries a snapshot of everything it sends, so it outlives the job and
-- the execution (deletion, pruning).
CREATE TABLE alert_outbox (
  id               bigserial PRIMARY KEY,
  job_id           integer NOT NULL,
  execution_id     bigint NOT NULL,
  event            text NOT NULL CHECK (event IN ('success', 'failed', 'timeout')),
  channel          text NOT NULL CHECK (channel IN ('webhook', 'email')),
  destination      text NOT NULL,
  snapshot         jsonb NOT NULL,
  state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL,
  next_attempt_at  timestamptz NOT NULL,
  locked_until     timestamptz,
  locked_by        text,
  finished_at      timestamptz,
  last_error       text,
  UNIQUE (execution_id, channel, destination)
);
-- The worker's claim: due pending rows, oldest first.
CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt_at, id) WHERE state = 'pending';
CREATE INDEX alert_outbox_finished ON alert_outbox (finished_at) WHERE state <> 'pending';
`;
