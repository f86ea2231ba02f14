import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { PartnerDirectory } from '../partners/index.ts';
import { problemResponses, withExample } from '../platform/openapi.ts';
import { callerOf, securePartnerApi } from '../platform/partner-api.ts';
import type { FailedAuthLimiter } from '../platform/rate-limit.ts';
import type { KeyRateLimiter } from '../platform/shared-rate-limit.ts';
import type { HomeDeps } from './deps.ts';
import { findCities } from './find-cities.ts';
import { issueHomeQuote } from './price-quote.ts';
import * as S from './schemas.ts';
import { CITY_BY_ZIP_CODE_DESCRIPTION, HOME_QUOTE_DESCRIPTION } from './route-descriptions.ts';
import { CITY_RESPONSE_EXAMPLE, HOME_QUOTE_RESPONSE_EXAMPLE } from './response-examples.ts';

export const DEMO_PREFIX = '/demo/v1';

/** The Demo API: French zip codes and a home-insurance quote. Handlers only translate HTTP to use cases. */
export function demoRoutes(
  deps: HomeDeps,
  options: { directory: PartnerDirectory; limiter: KeyRateLimiter; failures?: FailedAuthLimiter },
): FastifyPluginAsync {
  return async (plugin) => {
    securePartnerApi(plugin, { api: 'demo', ...options });
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['Demo'];

    app.post('/getCityByZipCode', {
      config: { rateClass: 'quote' }, // asked while a customer fills a form, like a quote
      schema: {
        tags,
        operationId: 'getCityByZipCode',
        summary: 'Cities of a French zip code',
        description: CITY_BY_ZIP_CODE_DESCRIPTION,
        body: S.CityRequest,
        response: {
          200: withExample(S.CityResponse, CITY_RESPONSE_EXAMPLE),
          ...problemResponses({ 404: ['zip_code_not_found'] }),
        },
      },
      handler: async (request) => findCities(request.body),
    });

    // Documented alias: /getPrice and /getprice answer alike.
    for (const [path, operationId] of [
      ['/getPrice', 'getPrice'],
      ['/getprice', 'getPriceAlias'],
    ] as const) {
      app.post(path, {
        config: { rateClass: 'quote' },
        schema: {
          tags,
          operationId,
          summary: path === '/getPrice' ? 'Quote a home insurance' : 'Quote a home insurance (alias of /getPrice)',
          description: HOME_QUOTE_DESCRIPTION,
          body: S.HomeQuoteRequest,
          response: {
            200: withExample(S.HomeQuoteResponse, HOME_QUOTE_RESPONSE_EXAMPLE),
            ...problemResponses({ 422: ['unknown_zip_code', 'zip_code_not_covered', 'city_mismatch'] }),
          },
        },
        handler: async (request) => issueHomeQuote(deps, callerOf(request), request.body),
      });
    }
  };
}
