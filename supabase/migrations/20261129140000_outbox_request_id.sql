-- The request that queued a job, so the job's log lines can be found with the request's own (X-Request-Id).
-- Null for jobs queued outside a request (reconciliation, the database's own triggers) and for jobs from before.
alter table public.outbox add column request_id text;
