/** The vocabulary of flight monitoring: the database schema, the CLI's choices and the pages derive from it. */

/** Where a flight watch stands: watched until decided, or held for an operator (manual_review), then closed. */
export const FLIGHT_WATCH_STATES = ['watching', 'decided', 'manual_review', 'closed'] as const;
export type FlightWatchState = (typeof FLIGHT_WATCH_STATES)[number];
