-- The job queue's schema (pg-boss, `schema: 'pgboss'` in src/platform/jobs.ts) exists before any
-- process starts pg-boss. pg-boss creates it on first start, in a transaction behind an advisory lock,
-- with `CREATE SCHEMA IF NOT EXISTS`; but a process that looked the schema up before waiting on that
-- lock keeps a stale "no such schema" entry in its catalog cache, so after the first process commits
-- its `IF NOT EXISTS` still tries to create it and fails on pg_namespace's unique index ("duplicate
-- key value", which pg-boss does not take for its creation race): that process died at start when
-- several started together on a new database (test/platform/multi-process.http.test.ts, compose.yaml's
-- replicas). Migrations run one process at a time behind their own lock, before the queue starts; with
-- the schema there, the losing process's first failure is "type … already exists", which pg-boss expects.
CREATE SCHEMA IF NOT EXISTS pgboss;
