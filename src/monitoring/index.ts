/** The monitoring domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { FLIGHT_WATCH_STATES, type FlightWatchState } from './model.ts';
export { checkFlightWatch, type CheckOutcome } from './check-flight.ts';
export { dispatchDueChecks } from './dispatch-checks.ts';
export { planWatches } from './plan-watches.ts';
export { MONITORING_SCHEDULE } from './schedule.ts';
export { isLocalDate, parseDesignator } from './flight-status.ts';
export {
  recordOperatorFlightEvent,
  type OperatorFlightEventResult,
  type OperatorFlightStatus,
} from './operator-flight-event.ts';
export { flightSpellings, openClaimsUnderSpellings } from './claims-under-spellings.ts';
export { flightProvidersFromConfig, type FlightProviders } from './providers.ts';
export {
  findSimulatedFlightEvent,
  saveSimulatedFlightEvent,
  type SimulatedEnvironment,
} from './simulated-events-repo.ts';
export { type SimulatedOutcome } from './simulator.ts';
export {
  activeRoutes,
  findWatchesOfFlight,
  legSpellings,
  listWatches,
  operatingFlightsOf,
  type FlightWatch,
} from './watches-repo.ts';
