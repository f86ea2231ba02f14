import type { FlightProviderConfig } from '../platform/config.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db } from '../platform/db.ts';
import {
  CircuitBreaker,
  SharedCircuitBreaker,
  type Breaker,
  type CircuitBreakerOptions,
} from '../platform/circuit-breaker.ts';
import type { FlightStatusProvider } from './flight-status.ts';
import { MAX_RETRY_AFTER_MS } from './schedule.ts';
import { FlightAwareProvider, type FlightAwareOptions } from './flightaware.ts';
import { FlightStatsProvider, type FlightStatsOptions } from './flightstats.ts';
import { SqlSimulatedFlightStore, type SimulatedEnvironment } from './simulated-events-repo.ts';
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

// ---------------------------------------------------------------------------------------------
// One provider per environment, each behind its circuit breaker (what the check job uses)

export interface MonitoredProvider {
  provider: FlightStatusProvider;
  breaker: Breaker;
}

/** The flight-status provider of each environment; undefined when production has none configured. */
export interface FlightProviders {
  forEnvironment(environment: Environment): MonitoredProvider | undefined;
}

/**
 * Providers given explicitly (tests), each wrapped in a new breaker (platform/circuit-breaker.ts): in
 * memory, or, with `shared`, in the database (one per environment and provider name, shared by every
 * process, its cool-down and probe compared on the database's clock: a test's fake clock dates the
 * watches, not the shared circuit). A provider's Retry-After is obeyed for at most `MAX_RETRY_AFTER_MS`, as by the watches.
 */
export function flightProviders(
  providers: Partial<Record<Environment, FlightStatusProvider>>,
  options: CircuitBreakerOptions = {},
  shared?: { db: Db },
): FlightProviders {
  const breaker = { maxRetryAfterMs: MAX_RETRY_AFTER_MS, ...options };
  const entries = new Map<Environment, MonitoredProvider>();
  for (const [environment, provider] of Object.entries(providers) as [
    Environment,
    FlightStatusProvider | undefined,
  ][]) {
    if (provider) {
      entries.set(environment, {
        provider,
        breaker: shared
          ? new SharedCircuitBreaker(shared.db, `${environment}:${provider.name}`, breaker)
          : new CircuitBreaker(breaker),
      });
    }
  }
  return { forEnvironment: (environment) => entries.get(environment) };
}

/**
 * The platform's providers (DESIGN.md): sandbox and preproduction → the simulator, reading its events
 * from the database (a flight nobody simulated lands on time); production → the configured real
 * provider, or none.
 */
export function flightProvidersFromConfig(
  settings: FlightProviderConfig | undefined,
  db: Db,
  now: () => Date,
  log?: { warn(o: object, m: string): void },
): FlightProviders {
  const simulator = (environment: SimulatedEnvironment) =>
    new SimulatorProvider({ store: new SqlSimulatedFlightStore(db, environment), whenUnset: 'on_time', now });
  const production = settings
    ? createFlightStatusProvider(
        settings.kind === 'flightaware'
          ? {
              kind: 'flightaware',
              apiKey: settings.apiKey,
              ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
              now,
              ...(log ? { log } : {}),
            }
          : {
              kind: 'flightstats',
              appId: settings.appId,
              appKey: settings.appKey,
              ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
              now,
            },
      )
    : undefined;
  // the breakers are shared by every worker process (provider_circuits), on the database's clock
  return flightProviders(
    { sandbox: simulator('sandbox'), preproduction: simulator('preproduction'), ...(production ? { production } : {}) },
    {},
    { db },
  );
}
