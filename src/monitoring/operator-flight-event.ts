import {
  claimsPaidDifferently,
  completeContractsOnFlight,
  reopenContractsOfCorrectedClaims,
  type DifferentClaim,
  type OpenedClaim,
} from '../claims/index.ts';
import { audit } from '../platform/audit.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { isLocalDate, parseDesignator } from './flight-status.ts';
import { flightSpellings, openClaimsUnderSpellings } from './claims-under-spellings.ts';
import { findWatchesOfFlight, insertMissingWatches, scheduledDepartureOf, updateWatch } from './watches-repo.ts';

export type OperatorFlightStatus = 'delayed' | 'cancelled' | 'diverted' | 'on_time';

export interface OperatorFlightEvent {
  environment: Environment;
  flightNumber: string;
  departureDate: string;
  status: OperatorFlightStatus;
  arrivalDelayMinutes?: number | undefined;
}

export interface OperatorFlightEventResult {
  /** The designators as the legs spell them (AF6 typed by the operator → AF006 on the legs). */
  flightNumbers: string[];
  claimsOpened: OpenedClaim[];
  /** Watches (watching or in manual review) this event decided. */
  watchesDecided: number;
  /**
   * Contracts the monitoring had completed as flown with nothing to pay, active again with the claim
   * this correction opened (their numbers).
   */
  contractsReopened: string[];
  /**
   * Claims already open on the flight that this event would pay differently: never changed by an event
   * (one claim per leg, its amount as first decided), listed for the claim desk. Voided claims are not
   * listed: the event gives their leg a new claim when it pays and the desk voided it for wrong flight data.
   */
  claimsNotChanged: DifferentClaim[];
}

/**
 * An operator states what happened to a flight (`parasol flights event`), in any environment: the
 * way out of manual review, or a correction. Opens the claims through the same use case as the
 * monitoring and POST /claims (idempotent: one claim per leg not voided), for every spelling of the
 * designator on the legs, then marks the flight's open watches decided (each with its audit row),
 * creating first the watch of a flight that has active legs and none yet (the planner's, made early).
 * `on_time` opens nothing and only decides the watches.
 *
 * Before the flight departs (scheduledDepartureOf: its earliest insured leg's scheduled departure or
 * its watch's when later, else the latest its watch, its cancelled legs or its former legs recorded —
 * whatever the contracts' state —, on `now`), only a
 * cancellation can be stated: `on_time`, `delayed` and `diverted` are refused (`flight_not_departed`),
 * on a watched flight as on one not watched yet — a decision taken ahead would stop the monitoring
 * and decide legs sold later.
 *
 * A correction after the flight was decided: contracts the monitoring completed as flown with nothing
 * to pay get their claim and are active again until it settles; claims already open stay as they were
 * decided (one claim per leg) and those this event would pay differently are returned for the desk.
 * A leg whose claim the desk voided because the flight data that opened it was wrong (void cause
 * `flight_data`) gets a new claim when this event pays (`replaceVoided`: only an operator's event,
 * never the monitoring), naming the voided one; its contract, if the void completed it (a void after departure), is active again.
 * A claim voided for anything else (cause `other`: fraud, sanctions, a duplicate) is never replaced.
 * Repeating the event opens nothing more.
 */
export async function recordOperatorFlightEvent(
  deps: { db: Db; jobs: JobQueue; now: () => Date },
  input: OperatorFlightEvent,
  actor: string,
): Promise<OperatorFlightEventResult> {
  const errors: FieldError[] = [];
  if (!parseDesignator(input.flightNumber))
    errors.push({
      field: '/flightNumber',
      code: 'invalid_format',
      message: 'must be an IATA flight designator such as AF006',
    });
  if (!isLocalDate(input.departureDate))
    errors.push({ field: '/departureDate', code: 'invalid_format', message: 'must be a date YYYY-MM-DD' });
  const minutes = input.arrivalDelayMinutes;
  if (input.status === 'delayed' && (minutes === undefined || !Number.isInteger(minutes) || minutes < 0)) {
    errors.push({
      field: '/arrivalDelayMinutes',
      code: 'required',
      message: 'required for a delayed flight: a whole number of minutes ≥ 0',
    });
  }
  if (input.status !== 'delayed' && minutes !== undefined)
    errors.push({ field: '/arrivalDelayMinutes', code: 'not_allowed', message: 'only for status delayed' });
  if (errors.length) throw new DomainError('validation_failed', 'The flight event is not valid.', { errors });

  // One transaction: the claims, the watches' decision and the contracts completed stand together,
  // and a monitoring check deciding the same flight meanwhile waits on the watch rows.
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now(); // one time for the claims opened and the watches decided
    const flightNumbers = await flightSpellings(trx, input.environment, input.flightNumber, input.departureDate);
    // What a flight did is known once it has flown: only a cancellation is stated ahead (watched or not)
    if (input.status !== 'cancelled') {
      const departure = await scheduledDepartureOf(trx, {
        environment: input.environment,
        flightNumber: input.flightNumber,
        flightNumbers,
        departureDate: input.departureDate,
      });
      if (departure && departure > now)
        throw new DomainError(
          'flight_not_departed',
          `${input.flightNumber} ${input.departureDate} departs at ${departure.toISOString()}: it can be stated ${input.status} only once it has departed (only cancelled may be stated before).`,
        );
    }
    const openedBy =
      input.status === 'on_time'
        ? new Map<string, OpenedClaim[]>()
        : await openClaimsUnderSpellings(
            trx,
            deps.jobs,
            flightNumbers,
            {
              environment: input.environment,
              departureDate: input.departureDate,
              status: input.status,
              arrivalDelayMinutes: minutes,
              source: 'operator',
              evidence: { reportedBy: actor },
              correction: true,
              replaceVoided: true,
            },
            actor,
            now,
          );
    // every spelling's claims in one list, by claim number — the order POST /claims reads them back in
    // (findClaims): the same order every time, whichever path printed them
    const claimsOpened = [...openedBy.values()]
      .flat()
      .sort((a, b) => (a.claimNumber < b.claimNumber ? -1 : a.claimNumber > b.claimNumber ? 1 : 0));
    const delayMinutes = input.status === 'delayed' ? minutes! : null;
    const contractsReopened = await reopenContractsOfCorrectedClaims(
      trx,
      claimsOpened,
      actor,
      {
        flightNumber: input.flightNumber,
        departureDate: input.departureDate,
        status: input.status,
        delayMinutes,
      },
      now,
    );
    const claimsNotChanged: DifferentClaim[] = [];
    for (const flightNumber of flightNumbers)
      claimsNotChanged.push(
        ...(await claimsPaidDifferently(trx, {
          environment: input.environment,
          flightNumber,
          departureDate: input.departureDate,
          event: input.status === 'on_time' ? 'delayed' : input.status,
          delayMinutes: delayMinutes ?? 0,
        })),
      );

    // A flight not watched yet (a cancellation stated more than 48 h ahead, a departed flight whose
    // watch is missing, or a leg sold since) gets its watch now, decided below: the decision is kept on
    // the flight whatever it is — on time, or a delay that pays nothing, which open no claim — so
    // GET /contracts/{n} shows it as for a watched flight, the monitoring never checks the flight over
    // it, and a leg sold later gets the claim the decision pays (the planner's early decisions).
    await insertMissingWatches(trx, {
      flight: { environment: input.environment, flightNumbers, departureDate: input.departureDate },
    });
    let watchesDecided = 0;
    for (const watch of await findWatchesOfFlight(trx, input.environment, input.flightNumber, input.departureDate)) {
      if (watch.state !== 'watching' && watch.state !== 'manual_review') continue;
      const decision = {
        kind: input.status,
        ...(input.status === 'delayed' ? { arrivalDelayMinutes: minutes } : {}),
        claimsOpened: openedBy.get(watch.flightNumber)?.length ?? 0,
        source: 'operator',
        // who stated it: the planner opens the claims of legs sold later in that operator's name
        reportedBy: actor,
      };
      if (
        await updateWatch(trx, watch.id, ['watching', 'manual_review'], {
          state: 'decided',
          nextCheckAt: null,
          decision,
          decidedAt: now,
          lastOutcome: input.status,
          reviewReason: null,
        })
      ) {
        await audit(trx, {
          actor,
          environment: watch.environment,
          entity: 'flight_watch',
          entityId: watch.id,
          action: 'flight_decided',
          at: now,
          data: { flightNumber: watch.flightNumber, departureDate: watch.departureDate, ...decision },
        });
        watchesDecided += 1;
      }
    }
    for (const flightNumber of flightNumbers)
      await completeContractsOnFlight(
        trx,
        { environment: input.environment, flightNumber, departureDate: input.departureDate },
        now,
      );
    return { flightNumbers, claimsOpened, watchesDecided, contractsReopened, claimsNotChanged };
  });
}
