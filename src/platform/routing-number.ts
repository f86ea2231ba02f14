/**
 * The ABA routing number's check: nine digits, 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) a multiple of
 * 10. Here because configuration (the insurer's ACH banks) and payouts (a customer's US account) both
 * read it, and platform/ imports no domain.
 */
export function abaChecksumValid(routing: string): boolean {
  if (!/^[0-9]{9}$/.test(routing)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += weights[i]! * (routing.charCodeAt(i) - 48);
  return sum % 10 === 0;
}
