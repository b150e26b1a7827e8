import type { AppConfig } from '../../config.js';
import type { FeeConfig } from '../../generated/prisma/client.js';
import type { PlatformConfigView } from './config.service.js';
import { providerRequiredCustomerFields } from './config.service.js';

export function feeConfigResource(f: FeeConfig) {
  const common = {
    id: f.id,
    variableFeeBps: f.variableFeeBps,
    fixedFee: { amount: Number(f.fixedFeeAmount), currency: f.fixedFeeCurrency },
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
  return f.feeType === 'RAIL'
    ? { feeType: 'RAIL', rail: f.rail, direction: f.direction, originator: f.originator, ...common }
    : { feeType: f.feeType, sourceCurrency: f.sourceCurrency, ...common };
}

export function configResource(view: PlatformConfigView, publicKeyPem: string, config: AppConfig) {
  const p = view.platform;
  return {
    id: `PlatformConfig:${p.id.slice(p.id.indexOf(':') + 1)}`,
    name: p.name,
    umaDomain: p.umaDomain,
    webhookEndpoint: p.webhookEndpoint,
    isRegulatedFinancialInstitution: p.isRegulated,
    environment: config.SVC_ENV === 'production' ? 'PRODUCTION' : 'SANDBOX',
    supportedCurrencies: view.currencies.map((c) => {
      const required = providerRequiredCustomerFields(c.currencyCode);
      return {
        currencyCode: c.currencyCode,
        minAmount: Number(c.minAmount),
        maxAmount: Number(c.maxAmount),
        requiredCounterpartyFields: c.requiredCounterpartyFields,
        enabledTransactionTypes: c.enabledTransactionTypes,
        ...(required ? { providerRequiredCustomerFields: required } : {}),
      };
    }),
    feeConfigs: view.feeConfigs.map(feeConfigResource),
    webhookPublicKey: publicKeyPem,
    maxLiveCards: p.maxLiveCards,
    oneCardPerCardholder: p.oneCardPerCardholder,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
