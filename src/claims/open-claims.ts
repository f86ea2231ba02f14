import { audit, auditAll } from '../platform/audit.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db, Executor } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { insertClaimsForFlight, type FlightEventType, type OpenedClaim } from './claims-repo.ts';
import { emitClaimWebhookEvents } from '../webhooks/index.ts';

/** A flight event: what the monitoring (or POST /claims, or the simulator) observed about a flight. */
export interface FlightEvent {
  environment: Environment;
  /** Full designator, e.g. "AF006". */
  flightNumber: string;
  /** Local departure date at the departure airport, 'YYYY-MM-DD'. */
  departureDate: string;
  status: FlightEventType;
  /** Arrival delay at the gate, in minutes, computed by Parasol; required for `delayed`. */
  arrivalDelayMinutes?: number | undefined;
  /** Where the event came from and the flight data behind it: kept with each claim as evidence. */
  source: string;
  evidence?: Record<string, unknown>;
  /** Only this partner's contracts (a partner rehearsing in sandbox); all partners' when absent. */
  partnerId?: string | undefined;
  /**
   * An operator's correction of a decided flight: the legs of contracts already completed as flown
   * with nothing to pay get their claim too (the caller reopens those contracts: `reopenCompletedContracts`).
   */
  correction?: boolean | undefined;
  /**
   * An operator's explicit event (the flight's true outcome): a leg whose claim the claim desk voided
   * for wrong flight data (cause `flight_data`; never `other`: fraud, sanctions, a duplicate) gets a
   * new claim, naming the voided one (`replaces`). Never for the monitoring, a partner's report or the
   * simulator: they would re-open what the desk voided on the same reported outcome.
   */
  replaceVoided?: boolean | undefined;
}

/**
 * Opens one claim per affected active contract leg of the flight (the trigger rules of DESIGN.md):
 * a delay pays the highest tier reached, a cancellation the cancellation amount, a diversion as a
 * cancellation when covered, else the highest tier. Idempotent: a leg never gets a second claim
 * (besides a claim the desk voided for wrong flight data, replaced only on an operator's explicit event:
 * `replaceVoided`).
 * Each claim opened gets its notification job (bank-details link and SMS) in the same transaction.
 * Returns the claims opened by this call (empty when all were already open or nothing is covered).
 * `deps.now`: the use case's clock, read once — when the event was observed (evidence `observedAt`;
 * docs/ARCHITECTURE.md, "Clocks").
 */
export async function openClaimsForFlightEvent(
  deps: { db: Db; jobs: JobQueue; now: () => Date },
  event: FlightEvent,
  actor = 'system',
): Promise<OpenedClaim[]> {
  checkFlightEvent(event);
  const at = deps.now();
  return deps.db.transaction().execute((trx) => openClaimsInTransaction(trx, deps.jobs, event, actor, at));
}

/**
 * The same, in the caller's transaction: for callers that decide something else with the claims
 * (the monitoring marks the flight's watch decided), all or nothing. `at`: the caller's clock
 * (`deps.now()`), when the event was observed (evidence `observedAt`). The claims' `opened_at` is the
 * transaction's start on the database's clock — their listing pages by it behind a commit horizon of
 * transaction starts — and their audit rows and `claim.opened` events say the same time
 * (docs/ARCHITECTURE.md, "Clocks").
 */
export async function openClaimsInTransaction(
  trx: Executor,
  jobs: JobQueue,
  event: FlightEvent,
  actor: string,
  at: Date,
): Promise<OpenedClaim[]> {
  checkFlightEvent(event);
  const delayMinutes = event.status === 'delayed' ? event.arrivalDelayMinutes! : null;
  const { claims: opened, openedAt } = await insertClaimsForFlight(trx, {
    environment: event.environment,
    flightNumber: event.flightNumber.toUpperCase(),
    departureDate: event.departureDate,
    event: event.status,
    delayMinutes,
    partnerId: event.partnerId,
    includeCompleted: event.correction,
    replaceVoided: event.replaceVoided,
    evidence: {
      source: event.source,
      status: event.status,
      arrivalDelayMinutes: delayMinutes,
      observedAt: at.toISOString(),
      ...event.evidence,
    },
  });
  // Each claim's notification (link, SMS) is a job enqueued in the same transaction: one
  // statement for all of them, and none if the claims do not commit.
  await jobs.sendMany(
    'claims_notify',
    opened.map((c) => ({ claimId: c.id })),
    { trx },
  );
  // dated as the claims' opened_at: the transaction's start (the listing's key, claims-repo.ts)
  if (openedAt === null) return opened;
  await emitClaimWebhookEvents(
    trx,
    jobs,
    'claim.opened',
    opened.map((c) => c.id),
    openedAt,
  );
  await audit(trx, {
    actor,
    // a partner's report (sandbox): its row, so a claim's trail (claims/desk.ts) tells it from another partner's
    partnerId: event.partnerId ?? null,
    environment: event.environment,
    entity: 'flight',
    entityId: `${event.flightNumber}/${event.departureDate}`,
    action: 'claims_opened',
    at: openedAt,
    data: { status: event.status, delayMinutes, claims: opened.length },
  });
  // a new claim on a leg whose claim was voided: each claim's trail names the other (one statement)
  await auditAll(
    trx,
    opened.flatMap((c) =>
      c.replaces
        ? [
            {
              actor,
              at: openedAt,
              partnerId: c.partnerId,
              environment: event.environment,
              entity: 'claim',
              entityId: c.claimNumber,
              action: 'claim_replaces_voided',
              data: { replaces: c.replaces, status: event.status, delayMinutes },
            },
            {
              actor,
              at: openedAt,
              partnerId: c.partnerId,
              environment: event.environment,
              entity: 'claim',
              entityId: c.replaces,
              action: 'claim_replaced',
              data: { replacedBy: c.claimNumber, status: event.status, delayMinutes },
            },
          ]
        : [],
    ),
  );
  return opened;
}

function checkFlightEvent(event: FlightEvent): void {
  if (
    event.status === 'delayed' &&
    (event.arrivalDelayMinutes === undefined ||
      !Number.isInteger(event.arrivalDelayMinutes) ||
      event.arrivalDelayMinutes < 0)
  ) {
    throw new DomainError(
      'validation_failed',
      'A delayed flight needs arrivalDelayMinutes, a whole number of minutes ≥ 0.',
      {
        errors: [
          {
            field: '/arrivalDelayMinutes',
            code: 'required',
            message: 'required for a delayed flight: a whole number of minutes ≥ 0',
          },
        ],
      },
    );
  }
}
