import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { exchangeRateResource, exchangeRatesQuery } from './rates.schemas.js';
import { listExchangeRates } from './rates.service.js';

export async function exchangeRateRoutes(app: FastifyInstance) {
  app.get('/exchange-rates', { config: { query: exchangeRatesQuery } }, async (req) => {
    const q = parseInput(exchangeRatesQuery, req.query);
    const views = await listExchangeRates(req.ctx, {
      sourceCurrency: q.sourceCurrency,
      ...(q.destinationCurrency ? { destinationCurrencies: q.destinationCurrency } : {}),
      sendingAmount: q.sendingAmount,
    });
    return { data: views.map(exchangeRateResource) };
  });
}
