/**
 * A flight designator as the platform spells it on a leg and in provider queries: no spaces, upper
 * case ('af 006' → 'AF006'). Its parts (airline, number without leading zeros, suffix) are compared by
 * monitoring's `sameDesignator`.
 */
export function normaliseFlightNumber(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}
