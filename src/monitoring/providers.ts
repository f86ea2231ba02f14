import type { FlightStatusProvider } from './flight-status.ts';
import { FlightAwareProvider, type FlightAwareOptions } from './flightaware.ts';
import { FlightStatsProvider, type FlightStatsOptions } from './flightstats.ts';
import { SimulatorProvider, type SimulatorOptions } from './simulator.ts';

/**
 * Which flight-data provider an environment uses, and its credentials (DESIGN.md: sandbox and
 * preproduction use the simulator, production a configured real provider). The job wiring reads
 * this from configuration and builds one provider per environment.
 */
export type FlightStatusProviderConfig =
  | ({ kind: 'flightaware' } & FlightAwareOptions)
  | ({ kind: 'flightstats' } & FlightStatsOptions)
  | ({ kind: 'simulator' } & SimulatorOptions);

export function createFlightStatusProvider(config: FlightStatusProviderConfig): FlightStatusProvider {
  switch (config.kind) {
    case 'flightaware':
      return new FlightAwareProvider(config);
    case 'flightstats':
      return new FlightStatsProvider(config);
    case 'simulator':
      return new SimulatorProvider(config);
  }
}
