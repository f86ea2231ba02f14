/** The vocabulary of contracts: the database schema, the API's schemas and the searches derive from it. */

/**
 * active until every leg has flown (completed) or the contract is cancelled; completed is active again
 * while a claim an operator's correction opened, or whose paid transfer came back, is not settled.
 */
export const CONTRACT_STATUSES = ['active', 'cancelled', 'completed'] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];

/** What made a contract version: the sale (version 1), then each change after it (migration 0024). */
export const CONTRACT_CHANGES = ['subscribed', 'flight_changed', 'passenger_cancelled', 'leg_cancelled'] as const;
export type ContractChange = (typeof CONTRACT_CHANGES)[number];
