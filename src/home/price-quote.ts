import { newQuoteId } from '../flight/index.ts';
import { homeRiskView, resolveHomeRisk, type HomeRiskInput, type HomeRiskView } from './home-risk.ts';
import type { Caller, HomeDeps, Money } from './deps.ts';
import { coveragesOf, priceHome, type Zone } from './pricing.ts';
import { signHomeQuote } from './quote-token.ts';
import { RATING_TABLE } from './rating-table.ts';
import { quotesTotal } from '../platform/metrics.ts';

export interface HomeCoverageView {
  code: string;
  label: string;
  limit: Money | null;
  deductible: Money;
  option: boolean;
}

export interface HomeQuote {
  quoteReference: string;
  expiresAt: string;
  tariffVersion: string;
  annualPremium: Money;
  monthlyPremium: Money;
  annualTax: Money;
  taxRate: number;
  zone: Zone;
  department: string;
  coverages: HomeCoverageView[];
  /** The canonical risk, its postal code under both names (homeRiskView). */
  risk: HomeRiskView;
}

const money = (amount: number): Money => ({ amount, currency: RATING_TABLE.currency });

/**
 * POST /getPrice of the Demo API: prices a home with the rating table and signs a quote reference
 * that the API to manage policies accepts with a `home` policy. Writes nothing.
 */
export function issueHomeQuote(deps: HomeDeps, caller: Caller, input: HomeRiskInput): HomeQuote {
  const now = deps.now();
  const { risk, priced } = resolveHomeRisk(input, '', now);
  const premium = priceHome(priced);
  const expiresAt = new Date(now.getTime() + RATING_TABLE.quoteValidityDays * 86_400_000);
  const quoteReference = signHomeQuote(deps.keys.quoteSigning, {
    id: newQuoteId(),
    partnerId: caller.partnerId,
    environment: caller.environment,
    tariffVersion: RATING_TABLE.version,
    currency: RATING_TABLE.currency,
    annualPremium: premium.annual,
    monthlyPremium: premium.monthly,
    risk,
    issuedAt: now,
    expiresAt,
  });
  quotesTotal.inc({ api: 'home', environment: caller.environment });
  return {
    quoteReference,
    expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000).toISOString(),
    tariffVersion: RATING_TABLE.version,
    annualPremium: money(premium.annual),
    monthlyPremium: money(premium.monthly),
    annualTax: money(premium.tax),
    taxRate: Number(RATING_TABLE.taxRate),
    zone: premium.zone,
    department: priced.department,
    coverages: coveragesOf(priced).map((c) => ({
      ...c,
      limit: c.limit === null ? null : money(c.limit),
      deductible: money(c.deductible),
    })),
    risk: homeRiskView(risk),
  };
}
