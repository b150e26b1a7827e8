import type { AppConfig } from '../../config.js';
import type { FeeConfig } from '../../generated/prisma/client.js';
import type { PlatformConfigView } from './config.service.js';
import { providerRequiredCustomerFields } from './config.service.js';
import { beneficiaryRulesOf, requiredBeneficiaryFields } from '../external-accounts/index.js';
import { omitAbsent } from '../../platform/http/omit-absent.js';
import { incomingApprovalOn } from './platforms.model.js'; // hook:25c

/** Beneficiary field paths → REF's CustomerInfoFieldName. */
const FIELD_NAMES: Record<string, string> = {
  fullName: 'FULL_NAME', legalName: 'FULL_NAME', birthDate: 'BIRTH_DATE', nationality: 'NATIONALITY', phoneNumber: 'PHONE_NUMBER',
  email: 'EMAIL', countryOfResidence: 'COUNTRY_OF_RESIDENCE', taxId: 'TAX_ID', registrationNumber: 'REGISTRATION_NUMBER',
};

/**
 * REF's per-currency `providerRequiredCounterpartyCustomerFields` (issue 13): what the payout in that
 * currency needs about an individual beneficiary, from the same rules external accounts enforce.
 */
export function counterpartyFieldsFor(currencyCode: string): string[] {
  const names = requiredBeneficiaryFields('INDIVIDUAL', { destination: currencyCode }).map((p) => (p.startsWith('address.') ? 'POSTAL_ADDRESS' : FIELD_NAMES[p]));
  return [...new Set(names.filter((n): n is string => typeof n === 'string'))];
}

/** A DNS label is at most 63 characters (RFC 1035). */
const MAX_LABEL = 63;
const ID_TAIL = 12;

/**
 * REF's read-only `proxyUmaSubdomain` (issue 13): the DNS label under which the deployment answers
 * the platform's incoming UMA requests — the platform's name as a label, then the last 12 hex
 * digits of its id (the random part of a UUIDv7), so it is stable and tells platforms of one name
 * apart. Derived, not stored: it cannot be set.
 */
export function proxyUmaSubdomainOf(platform: { id: string; name: string }): string {
  const tail = platform.id.replace(/[^0-9a-f]/gi, '').slice(-ID_TAIL).toLowerCase();
  const slug = platform.name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, MAX_LABEL - ID_TAIL - 1).replace(/-+$/, '');
  return slug ? `${slug}-${tail}` : tail;
}

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

/** Optional fields REF leaves out while unset (issue 13; decisions §8 types them string). */
const OPTIONAL = ['umaDomain', 'webhookEndpoint'] as const;

export function configResource(view: PlatformConfigView, publicKeyPem: string, config: AppConfig) {
  const p = view.platform;
  return omitAbsent({
    id: `PlatformConfig:${p.id}`, // the platform's uuid (30e)
    name: p.name,
    umaDomain: p.umaDomain,
    proxyUmaSubdomain: proxyUmaSubdomainOf(p),
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
        providerRequiredCounterpartyCustomerFields: counterpartyFieldsFor(c.currencyCode),
      };
    }),
    feeConfigs: view.feeConfigs.map(feeConfigResource),
    webhookPublicKey: publicKeyPem,
    maxLiveCards: p.maxLiveCards,
    oneCardPerCardholder: p.oneCardPerCardholder,
    // Issue 25: the rule in force for this platform (its choice, else the deployment's default).
    endUserTermsRequired: p.endUserTermsRequired ?? (config.END_USER_TERMS_ENFORCEMENT === 'unregulated' && !p.isRegulated),
    embeddedWalletConfig: view.embeddedWalletConfig ?? undefined, // hook:28 (REF leaves it out while unset)
    // Issue 27 (REF): present once the platform set it.
    ...(p.cardTokenization2faConfig ? { cardTokenization2faConfig: p.cardTokenization2faConfig } : {}),
    beneficiaryRules: beneficiaryRulesOf(config, p), // hook:25c — the rules in force
    incomingPaymentApproval: incomingApprovalOn(config, p), // hook:25c
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  }, OPTIONAL);
}
