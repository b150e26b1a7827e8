/**
 * Prints the openapi.yaml component schemas of `accountInfo` (one per accountType, a discriminated union over
 * `accountType`) and of the beneficiary, generated from the zod schemas the server validates with, so the
 * document states exactly the rules the code applies. The output is pasted into openapi.yaml between the
 * `# >>> generated: account info` and `# <<< generated: account info` markers:
 *
 *   npx tsx scripts/openapi-account-info.ts --write
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { stringify } from 'yaml';
import { ACCOUNT_INFO } from '../src/domains/external-accounts/account-info.schemas.js';
import { ACCOUNT_TYPES, type CanonicalAccountType, currenciesFor, isWalletType, providerCodesFor } from '../src/domains/external-accounts/account-types.js';
import { addressSchema, beneficiarySchema } from '../src/domains/external-accounts/beneficiary.schemas.js';

type Json = Record<string, any>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export function schemaName(type: CanonicalAccountType): string {
  return `${type.split('_').map((w) => w[0] + w.slice(1).toLowerCase()).join('')}Info`;
}

/** IBAN fields are normalised (spaces removed, upper-cased) before their pattern applies; these are the stored forms. */
const IBAN_PATTERNS: Partial<Record<CanonicalAccountType, string>> = {
  AED_ACCOUNT: '^AE\\d{21}$',
  ILS_ACCOUNT: '^IL\\d{21}$',
  EGP_ACCOUNT: '^EG\\d{27}$',
  PKR_ACCOUNT: '^PK\\d{2}[A-Z]{4}\\d{16}$',
  DKK_ACCOUNT: '^DK\\d{16}$',
};

/** Patterns zod cannot carry over faithfully (case-insensitive regexes): described instead. */
const CASE_INSENSITIVE = new Set(['lightningAddress', 'invoice', 'bolt12']);

/** Refinements zod cannot export: country codes and dates. */
function annotate(properties: Json): void {
  for (const [name, prop] of Object.entries<Json>(properties)) {
    if (['country', 'nationality', 'countryOfResidence', 'region'].includes(name) && !prop.enum) prop.pattern ??= '^[A-Z]{2}$';
    if (name === 'birthDate') prop.format = 'date';
  }
}

function fieldsOf(type: CanonicalAccountType, schema: z.ZodType): { properties: Json; required: string[] } {
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const properties: Json = js.properties ?? {};
  annotate(properties);
  for (const [name, prop] of Object.entries<Json>(properties)) {
    delete prop.$schema;
    if (name === 'iban') {
      prop.pattern = IBAN_PATTERNS[type] ?? '^[A-Z]{2}\\d{2}[A-Z0-9]{11,30}$';
      prop.description = 'IBAN; accepted with spaces or in lower case, stored and returned in electronic form. Checked with mod-97 (400 INVALID_BANK_ACCOUNT).';
    }
    if (name === 'provider') {
      const cur = currenciesFor(type)?.[0] ?? '';
      prop.description = `The mobile-money operator's name (REF), any letter case; the sandbox list (MOBILE_MONEY_PROVIDERS replaces it per currency): ${providerCodesFor(cur).join(', ')}. The earlier placeholder codes (${cur}_MOBILE_1…) are still accepted as sent.`;
      prop.examples = [providerCodesFor(cur)[0]];
    }
    if (CASE_INSENSITIVE.has(name) || (type === 'SPARK_WALLET' && name === 'address')) {
      prop.description = `Pattern (case-insensitive): ${prop.pattern}`;
      delete prop.pattern;
    }
    if (type === 'XOF_ACCOUNT' && name === 'region') prop.description = "REF: the CFA-zone country; optional (the spec has no region), and when given the phone number must be of that country (+229 BJ, +225 CI, +221 SN, +228 TG).";
    if (name === 'registrationNumber' && type === 'CAD_ACCOUNT') prop.description = 'REF: the individual beneficiary\'s registration number (CAD accounts only).';
    if (type === 'PHP_ACCOUNT' && name === 'bankName') prop.description = 'Must be a `bankName` returned by `GET /discoveries?country=PH&currency=PHP`.';
  }
  return { properties, required: js.required ?? [] };
}

function accountInfoSchema(type: CanonicalAccountType): Json {
  const def = ACCOUNT_INFO[type];
  const wallet = isWalletType(type);
  const currencies = currenciesFor(type);
  const out: Json = {
    title: type === 'LIGHTNING' ? 'LIGHTNING / LIGHTNING_ACCOUNT' : type,
    type: 'object',
    description: `Currency: ${currencies ? currencies.join(' or ') : 'any ISO 4217 fiat currency'}. See docs/account-types.md.`,
    required: wallet ? ['accountType'] : ['accountType', 'beneficiary'],
    properties: {
      accountType: type === 'LIGHTNING' ? { type: 'string', enum: ['LIGHTNING', 'LIGHTNING_ACCOUNT'] } : { type: 'string', const: type },
      beneficiary: wallet ? ref('WalletBeneficiary') : ref('Beneficiary'),
      paymentRails: ref('PaymentRails'),
    },
  };
  if (def.variants.length === 1) {
    const { properties, required } = fieldsOf(type, def.variants[0].schema);
    Object.assign(out.properties, properties);
    out.required.push(...required);
  } else {
    out.anyOf = def.variants.map((v) => {
      const { properties, required } = fieldsOf(type, v.schema);
      return { title: v.label, type: 'object', properties, required };
    });
  }
  if (type === 'LIGHTNING') {
    out.oneOf = ['lightningAddress', 'invoice', 'bolt12'].map((f) => ({ required: [f] }));
    out.description += ' Exactly one of `lightningAddress`, `invoice` (single-use BOLT11), `bolt12` (reusable offer).';
  }
  if (type === 'SWIFT_ACCOUNT') out.anyOf = [{ required: ['accountNumber'] }, { required: ['iban'] }];
  return out;
}

function beneficiarySchemas(): Json {
  const js = z.toJSONSchema(beneficiarySchema, { io: 'input', unrepresentable: 'any' }) as Json;
  const [individual, business] = (js.oneOf ?? js.anyOf) as [Json, Json];
  const address = z.toJSONSchema(addressSchema, { io: 'input' }) as Json;
  delete address.$schema;
  annotate(address.properties);
  for (const s of [individual, business]) {
    annotate(s.properties);
    s.properties.address = ref('BeneficiaryAddress');
    delete s.additionalProperties;
  }
  delete business.properties.beneficiaryType.const;
  return {
    Beneficiary: {
      description:
        'Required for fiat accounts. Minimum fields depend on the destination currency (docs/account-types.md, Beneficiary); ' +
        'a missing one is 400 INVALID_INPUT naming `accountInfo.beneficiary.<field>`. Businesses may send `businessInfo {legalName, taxId}` instead of the top-level fields.',
      oneOf: [ref('IndividualBeneficiary'), ref('BusinessBeneficiary')],
      discriminator: { propertyName: 'beneficiaryType', mapping: { INDIVIDUAL: '#/components/schemas/IndividualBeneficiary', BUSINESS: '#/components/schemas/BusinessBeneficiary' } },
    },
    WalletBeneficiary: {
      description: 'Optional on wallets (INDIVIDUAL needs fullName and countryOfResidence); required for THIRD_PARTY wallets on counterparty-rules platforms.',
      allOf: [ref('Beneficiary')],
    },
    IndividualBeneficiary: { ...individual, properties: { ...individual.properties, beneficiaryType: { type: 'string', const: 'INDIVIDUAL' } } },
    BusinessBeneficiary: { ...business, properties: { ...business.properties, beneficiaryType: { type: 'string', const: 'BUSINESS' } } },
    BeneficiaryAddress: address,
  };
}

export function generate(): Json {
  const types = ACCOUNT_TYPES.filter((t): t is CanonicalAccountType => t !== 'LIGHTNING_ACCOUNT');
  const mapping: Record<string, string> = {};
  for (const t of ACCOUNT_TYPES) mapping[t] = `#/components/schemas/${schemaName(t === 'LIGHTNING_ACCOUNT' ? 'LIGHTNING' : t)}`;
  const schemas: Json = {
    AccountType: { type: 'string', enum: [...ACCOUNT_TYPES], description: '`LIGHTNING_ACCOUNT` is a second name of `LIGHTNING`.' },
    PaymentRails: {
      type: 'array',
      readOnly: true,
      items: { type: 'string' },
      description: 'Read-only, returned where the service selects rails (e.g. `ACH`, `WIRE`, `RTP`, `FEDNOW` for US accounts); never sent on creation (400).',
    },
    AccountInfo: {
      description: 'Discriminated by `accountType`; one schema per type.',
      oneOf: types.map((t) => ref(schemaName(t))),
      discriminator: { propertyName: 'accountType', mapping },
    },
    ...Object.fromEntries(types.map((t) => [schemaName(t), accountInfoSchema(t)])),
    ...beneficiarySchemas(),
  };
  return schemas;
}

const BEGIN = '    # >>> generated: account info (scripts/openapi-account-info.ts)';
const END = '    # <<< generated: account info';

export function render(): string {
  const body = stringify(generate(), { lineWidth: 0, aliasDuplicateObjects: false })
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => `    ${l}`)
    .join('\n');
  return `${BEGIN}\n${body}\n${END}`;
}

if (process.argv.includes('--write')) {
  const file = new URL('../openapi.yaml', import.meta.url);
  const doc = readFileSync(file, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < 0) throw new Error('openapi.yaml lacks the generated-block markers');
  writeFileSync(file, doc.slice(0, start) + render() + doc.slice(end + END.length));
} else if (process.argv[1]?.endsWith('openapi-account-info.ts')) {
  console.log(render());
}
