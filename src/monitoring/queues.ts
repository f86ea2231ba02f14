/** The monitoring's job queues (registered in worker.ts through monitoring-jobs.ts). */
export const MONITORING_QUEUES = {
  /** Creates the missing watches, closes those without contracts: every 5 minutes. */
  plan: 'flights_plan',
  /** Leases the due watches and queues their checks: every minute. */
  dispatch: 'flights_dispatch',
  /** One check of one watch: `{ watchId }`, at most one queued per watch. */
  check: 'flights_check',
} as const;
