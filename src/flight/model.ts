/** The vocabulary of contracts: the database schema, the API's schemas and the searches derive from it. */

/** active until every leg has flown (completed) or the contract is cancelled. */
export const CONTRACT_STATUSES = ['active', 'cancelled', 'completed'] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];
