/** Exact sum of minor-unit amounts (BigInt: no 2^53 ceiling, whatever the number of payouts). */
export function sumMinor(amounts: Iterable<number | bigint>): bigint {
  let total = 0n;
  for (const amount of amounts) total += BigInt(amount);
  return total;
}
