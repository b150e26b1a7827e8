import { bech32m } from '@scure/base';
import bs58 from 'bs58';
import bs58check from 'bs58check';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/platform/errors.js';
import {
  paymentRailsFor, senderBusinessRegistrationRequired, validateAccountInfo,
} from '../../../src/domains/external-accounts/account-info.validate.js';
import { ACCOUNT_TYPES, configureProviderCodes, resetProviderCodes } from '../../../src/domains/external-accounts/account-types.js';
import { CNY_WALLET_NAMES } from '../../../src/domains/external-accounts/account-info.schemas.js';
import { findBanks, isDiscoveredBank } from '../../../src/domains/external-accounts/discoveries.js';
import {
  isValidAbaRouting, isValidClabe, isValidCnpj, isValidCpf,
} from '../../../src/domains/external-accounts/account-info.checksums.js';
import { bolt11Invoice, company, EXAMPLE_TYPES, evmAddress, IBANS, person, sparkPayload, validExample } from './fixtures.js';

type Info = Record<string, any>;
type Input = { currency: string; accountInfo: Info; isBusinessSender?: boolean };

function failure(input: unknown): DomainError {
  try {
    validateAccountInfo(input as Input);
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected validateAccountInfo to throw');
}

function fields(e: DomainError): string[] {
  return ((e.details?.errors ?? []) as Array<{ field: string }>).map((x) => x.field);
}

/** Apply `change` to a fresh valid example of `type`. */
function variant(type: (typeof ACCOUNT_TYPES)[number], change: (input: Input) => void): Input {
  const input: Input = validExample(type);
  change(input);
  return input;
}

afterEach(() => resetProviderCodes());

describe('every account type accepts a valid example', () => {
  it('has an example for every spec accountType', () => {
    expect([...EXAMPLE_TYPES].sort()).toEqual([...ACCOUNT_TYPES].sort());
  });

  it.each(EXAMPLE_TYPES)('%s', (type) => {
    const input = validExample(type);
    const out = validateAccountInfo(input);
    expect(out.accountInfo.accountType).toBe(type);
    expect(out.accountType).toBe(type === 'LIGHTNING_ACCOUNT' ? 'LIGHTNING' : type);
    expect(out.identifierLast3).toHaveLength(3);
  });
});

/** [name, type, change, expected code, expected field] */
const STRUCTURAL: Array<[string, (typeof ACCOUNT_TYPES)[number], (i: Input) => void, string]> = [
  // currency fits the type
  ['USD account in EUR', 'USD_ACCOUNT', (i) => (i.currency = 'EUR'), 'currency'],
  ['SLV account in SVC (spec: held in USD)', 'SLV_ACCOUNT', (i) => (i.currency = 'SVC'), 'currency'],
  ['Base wallet in USDT', 'BASE_WALLET', (i) => (i.currency = 'USDT'), 'currency'],
  ['Tron wallet in USDC', 'TRON_WALLET', (i) => (i.currency = 'USDC'), 'currency'],
  ['Solana wallet in BTC', 'SOLANA_WALLET', (i) => (i.currency = 'BTC'), 'currency'],
  ['Lightning in USD', 'LIGHTNING', (i) => (i.currency = 'USD'), 'currency'],
  ['SWIFT account in a crypto asset', 'SWIFT_ACCOUNT', (i) => (i.currency = 'USDC'), 'currency'],
  ['SWIFT account in an unknown currency', 'SWIFT_ACCOUNT', (i) => (i.currency = 'ABC'), 'currency'],
  // read-only and discriminator
  ['unknown accountType', 'USD_ACCOUNT', (i) => (i.accountInfo.accountType = 'FOO_ACCOUNT'), 'accountInfo.accountType'],
  ['missing accountType', 'USD_ACCOUNT', (i) => delete i.accountInfo.accountType, 'accountInfo.accountType'],
  // USD
  ['USD accountNumber of 3 digits', 'USD_ACCOUNT', (i) => (i.accountInfo.accountNumber = '123'), 'accountInfo.accountNumber'],
  ['USD accountNumber of 18 digits', 'USD_ACCOUNT', (i) => (i.accountInfo.accountNumber = '1'.repeat(18)), 'accountInfo.accountNumber'],
  ['USD routingNumber of 8 digits', 'USD_ACCOUNT', (i) => (i.accountInfo.routingNumber = '02100002'), 'accountInfo.routingNumber'],
  ['USD bankAccountType unknown', 'USD_ACCOUNT', (i) => (i.accountInfo.bankAccountType = 'BROKERAGE'), 'accountInfo.bankAccountType'],
  ['USD bankName empty', 'USD_ACCOUNT', (i) => (i.accountInfo.bankName = ''), 'accountInfo.bankName'],
  ['USD intermediaryRoutingNumber not digits', 'USD_ACCOUNT', (i) => (i.accountInfo.intermediaryRoutingNumber = 'abc'), 'accountInfo.intermediaryRoutingNumber'],
  // MXN, BRL
  ['MXN CLABE of 17 digits', 'MXN_ACCOUNT', (i) => (i.accountInfo.clabeNumber = '03218000011835971'), 'accountInfo.clabeNumber'],
  ['BRL pixKeyType unknown', 'BRL_ACCOUNT', (i) => (i.accountInfo.pixKeyType = 'IBAN'), 'accountInfo.pixKeyType'],
  ['BRL CPF pix key of 10 digits', 'BRL_ACCOUNT', (i) => (i.accountInfo.pixKey = '5299822472'), 'accountInfo.pixKey'],
  ['BRL PHONE pix key outside Brazil', 'BRL_ACCOUNT', (i) => Object.assign(i.accountInfo, { pixKeyType: 'PHONE', pixKey: '+15555550123' }), 'accountInfo.pixKey'],
  ['BRL taxId of 12 digits', 'BRL_ACCOUNT', (i) => (i.accountInfo.taxId = '123456789012'), 'accountInfo.taxId'],
  // bank vs mobile variants
  ['COP with both accountNumber and phoneNumber', 'COP_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+573001234567'), 'accountInfo.phoneNumber'],
  ['COP with neither accountNumber nor phoneNumber', 'COP_ACCOUNT', (i) => delete i.accountInfo.accountNumber, 'accountInfo.accountNumber'],
  ['COP mobile money with a national number', 'COP_ACCOUNT', (i) => (i.accountInfo = { accountType: 'COP_ACCOUNT', bankName: 'NEQUI', phoneNumber: '3001234567', beneficiary: person() }), 'accountInfo.phoneNumber'],
  ['COP mobile money without bankName', 'COP_ACCOUNT', (i) => (i.accountInfo = { accountType: 'COP_ACCOUNT', phoneNumber: '+573001234567', beneficiary: person() }), 'accountInfo.bankName'],
  ['SLV bank transfer without bankAccountType', 'SLV_ACCOUNT', (i) => Object.assign(i.accountInfo, { phoneNumber: undefined, accountNumber: '123', bankName: 'BANCO_AGRICOLA' }), 'accountInfo.bankAccountType'],
  ['BDT mobile money without bankName', 'BDT_ACCOUNT', (i) => (i.accountInfo = { accountType: 'BDT_ACCOUNT', phoneNumber: '+8801712345678', beneficiary: person() }), 'accountInfo.bankName'],
  ['BDT branchCode with punctuation', 'BDT_ACCOUNT', (i) => (i.accountInfo.branchCode = '12-3'), 'accountInfo.branchCode'],
  ['EGP IBAN of 28 characters', 'EGP_ACCOUNT', (i) => (i.accountInfo.iban = IBANS.EG.slice(0, 28)), 'accountInfo.iban'],
  ['EGP with neither iban nor phoneNumber', 'EGP_ACCOUNT', (i) => delete i.accountInfo.iban, 'accountInfo.iban'],
  ['GHS without bankName', 'GHS_ACCOUNT', (i) => delete i.accountInfo.bankName, 'accountInfo.bankName'],
  ['GHS with neither accountNumber nor phoneNumber', 'GHS_ACCOUNT', (i) => delete i.accountInfo.phoneNumber, 'accountInfo.accountNumber'],
  ['PKR IBAN with the wrong layout', 'PKR_ACCOUNT', (i) => (i.accountInfo.iban = 'PK36123400000011234567021'), 'accountInfo.iban'],
  ['PKR mobile money with a bad phone', 'PKR_ACCOUNT', (i) => (i.accountInfo = { accountType: 'PKR_ACCOUNT', bankName: 'JAZZCASH', phoneNumber: '03001234567', beneficiary: person() }), 'accountInfo.phoneNumber'],
  // CNY wallet vs bank
  ['CNY wallet with an unknown wallet name', 'CNY_ACCOUNT', (i) => (i.accountInfo.bankName = 'PAYPAL'), 'accountInfo.bankName'],
  ['CNY wallet name without phone', 'CNY_ACCOUNT', (i) => delete i.accountInfo.phoneNumber, 'accountInfo.phoneNumber'],
  ['CNY bank transfer naming a wallet', 'CNY_ACCOUNT', (i) => Object.assign(i.accountInfo, { phoneNumber: undefined, accountNumber: '6222021234567890', beneficiary: company() }), 'accountInfo.bankName'],
  ['CNY bank transfer to an individual', 'CNY_ACCOUNT', (i) => Object.assign(i.accountInfo, { phoneNumber: undefined, bankName: 'BANK_OF_CHINA', accountNumber: '6222021234567890' }), 'accountInfo.beneficiary.beneficiaryType'],
  ['CNY without bankName', 'CNY_ACCOUNT', (i) => delete i.accountInfo.bankName, 'accountInfo.bankName'],
  // IBAN types
  ['EUR IBAN malformed', 'EUR_ACCOUNT', (i) => (i.accountInfo.iban = 'XX'), 'accountInfo.iban'],
  ['EUR swiftCode too short', 'EUR_ACCOUNT', (i) => (i.accountInfo.swiftCode = 'COBA'), 'accountInfo.swiftCode'],
  ['AED IBAN of another country', 'AED_ACCOUNT', (i) => (i.accountInfo.iban = IBANS.DE), 'accountInfo.iban'],
  ['AED IBAN of 22 characters', 'AED_ACCOUNT', (i) => (i.accountInfo.iban = IBANS.AE.slice(0, 22)), 'accountInfo.iban'],
  ['ILS IBAN of another country', 'ILS_ACCOUNT', (i) => (i.accountInfo.iban = IBANS.AE), 'accountInfo.iban'],
  ['ILS without bankName', 'ILS_ACCOUNT', (i) => delete i.accountInfo.bankName, 'accountInfo.bankName'],
  ['DKK IBAN of another country', 'DKK_ACCOUNT', (i) => (i.accountInfo.iban = IBANS.DE), 'accountInfo.iban'],
  // digit counts
  ['PHP bank not from discovery', 'PHP_ACCOUNT', (i) => (i.accountInfo.bankName = 'BDO Unibank'), 'accountInfo.bankName'],
  ['PHP accountNumber of 7 digits', 'PHP_ACCOUNT', (i) => (i.accountInfo.accountNumber = '1234567'), 'accountInfo.accountNumber'],
  ['PHP accountNumber of 17 digits', 'PHP_ACCOUNT', (i) => (i.accountInfo.accountNumber = '1'.repeat(17)), 'accountInfo.accountNumber'],
  ['GBP sortCode of 5 digits', 'GBP_ACCOUNT', (i) => (i.accountInfo.sortCode = '60161'), 'accountInfo.sortCode'],
  ['GBP sortCode with dashes', 'GBP_ACCOUNT', (i) => (i.accountInfo.sortCode = '60-16-13'), 'accountInfo.sortCode'],
  ['GBP accountNumber of 9 digits', 'GBP_ACCOUNT', (i) => (i.accountInfo.accountNumber = '319268190'), 'accountInfo.accountNumber'],
  ['NGN accountNumber of 9 digits', 'NGN_ACCOUNT', (i) => (i.accountInfo.accountNumber = '012345678'), 'accountInfo.accountNumber'],
  ['ZAR accountNumber of 8 digits', 'ZAR_ACCOUNT', (i) => (i.accountInfo.accountNumber = '12345678'), 'accountInfo.accountNumber'],
  ['ZAR accountNumber of 14 digits', 'ZAR_ACCOUNT', (i) => (i.accountInfo.accountNumber = '1'.repeat(14)), 'accountInfo.accountNumber'],
  ['CAD bankCode of 2 digits', 'CAD_ACCOUNT', (i) => (i.accountInfo.bankCode = '03'), 'accountInfo.bankCode'],
  ['CAD branchCode of 4 digits', 'CAD_ACCOUNT', (i) => (i.accountInfo.branchCode = '1234'), 'accountInfo.branchCode'],
  ['CAD accountNumber of 13 digits', 'CAD_ACCOUNT', (i) => (i.accountInfo.accountNumber = '1'.repeat(13)), 'accountInfo.accountNumber'],
  ['JMD branchCode of 4 digits', 'JMD_ACCOUNT', (i) => (i.accountInfo.branchCode = '1234'), 'accountInfo.branchCode'],
  ['GTQ without bankAccountType', 'GTQ_ACCOUNT', (i) => delete i.accountInfo.bankAccountType, 'accountInfo.bankAccountType'],
  // INR UPI vs NEFT/RTGS
  ['INR IFSC without the fifth-character 0', 'INR_ACCOUNT', (i) => (i.accountInfo.ifsc = 'SBIN1001234'), 'accountInfo.ifsc'],
  ['INR IFSC of 10 characters', 'INR_ACCOUNT', (i) => (i.accountInfo.ifsc = 'SBIN000123'), 'accountInfo.ifsc'],
  ['INR rail IMPS', 'INR_ACCOUNT', (i) => (i.accountInfo.rail = 'IMPS'), 'accountInfo.rail'],
  ['INR accountNumber of 8 digits', 'INR_ACCOUNT', (i) => (i.accountInfo.accountNumber = '12345678'), 'accountInfo.accountNumber'],
  ['INR accountNumber of 19 digits', 'INR_ACCOUNT', (i) => (i.accountInfo.accountNumber = '1'.repeat(19)), 'accountInfo.accountNumber'],
  ['INR UPI and bank fields together', 'INR_ACCOUNT', (i) => (i.accountInfo.vpa = 'ada@okaxis'), 'accountInfo.vpa'],
  ['INR UPI address without @', 'INR_ACCOUNT', (i) => (i.accountInfo = { accountType: 'INR_ACCOUNT', vpa: 'ada', beneficiary: person() }), 'accountInfo.vpa'],
  ['INR without vpa or bank fields', 'INR_ACCOUNT', (i) => (i.accountInfo = { accountType: 'INR_ACCOUNT', beneficiary: person() }), 'accountInfo.accountNumber'],
  // mobile money phones and operators
  ['KES phone with 8 digits', 'KES_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+25471234567'), 'accountInfo.phoneNumber'],
  ['KES phone of Tanzania', 'KES_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+255712345678'), 'accountInfo.phoneNumber'],
  ['KES provider of another currency', 'KES_ACCOUNT', (i) => (i.accountInfo.provider = 'TZS_MOBILE_1'), 'accountInfo.provider'],
  ['KES without provider', 'KES_ACCOUNT', (i) => delete i.accountInfo.provider, 'accountInfo.provider'],
  ['TZS phone with 10 digits', 'TZS_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+2557123456789'), 'accountInfo.phoneNumber'],
  ['ZMW provider beyond the 4 codes', 'ZMW_ACCOUNT', (i) => (i.accountInfo.provider = 'ZMW_MOBILE_5'), 'accountInfo.provider'],
  ['ZMW phone of Kenya', 'ZMW_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+254712345678'), 'accountInfo.phoneNumber'],
  ['RWF phone with 8 digits', 'RWF_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+25078123456'), 'accountInfo.phoneNumber'],
  ['MWK phone with 8 digits', 'MWK_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+26599123456'), 'accountInfo.phoneNumber'],
  ['UGX phone with 10 digits', 'UGX_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+2567712345678'), 'accountInfo.phoneNumber'],
  ['XOF Senegal phone with 8 digits', 'XOF_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+22177123456'), 'accountInfo.phoneNumber'],
  ["XOF Côte d'Ivoire phone with 9 digits", 'XOF_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+225071234567'), 'accountInfo.phoneNumber'],
  ['XOF Benin phone with 7 digits', 'XOF_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+2291234567'), 'accountInfo.phoneNumber'],
  ['XOF Benin phone with 10 digits', 'XOF_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+2291234567890'), 'accountInfo.phoneNumber'],
  ['XOF phone of a non-XOF country code', 'XOF_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+226701234567'), 'accountInfo.phoneNumber'],
  ['XAF region outside CM/CG', 'XAF_ACCOUNT', (i) => (i.accountInfo.region = 'GA'), 'accountInfo.region'],
  ['XAF phone without +', 'XAF_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '237671234567'), 'accountInfo.phoneNumber'],
  ['BWP without provider', 'BWP_ACCOUNT', (i) => delete i.accountInfo.provider, 'accountInfo.provider'],
  ['BWP phone not E.164', 'BWP_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '71234567'), 'accountInfo.phoneNumber'],
  ['HTG phone not E.164', 'HTG_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+0934123456'), 'accountInfo.phoneNumber'],
  // types the spec leaves "not shown" (decisions B§5.9)
  ['HKD without swiftCode', 'HKD_ACCOUNT', (i) => delete i.accountInfo.swiftCode, 'accountInfo.swiftCode'],
  ['IDR phone with 8 digits', 'IDR_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+6281234567'), 'accountInfo.phoneNumber'],
  ['MYR without accountNumber', 'MYR_ACCOUNT', (i) => delete i.accountInfo.accountNumber, 'accountInfo.accountNumber'],
  ['THB without bankName', 'THB_ACCOUNT', (i) => delete i.accountInfo.bankName, 'accountInfo.bankName'],
  ['VND accountNumber of 35 characters', 'VND_ACCOUNT', (i) => (i.accountInfo.accountNumber = '1'.repeat(35)), 'accountInfo.accountNumber'],
  ['SGD without swiftCode', 'SGD_ACCOUNT', (i) => delete i.accountInfo.swiftCode, 'accountInfo.swiftCode'],
  ['SWIFT with neither accountNumber nor iban', 'SWIFT_ACCOUNT', (i) => delete i.accountInfo.iban, 'accountInfo.accountNumber'],
  ['SWIFT with an unknown country', 'SWIFT_ACCOUNT', (i) => (i.accountInfo.country = 'XX'), 'accountInfo.country'],
  // wallets
  ['EVM address without 0x', 'ETHEREUM_WALLET', (i) => (i.accountInfo.address = evmAddress.slice(2)), 'accountInfo.address'],
  ['Polygon address of 39 hex digits', 'POLYGON_WALLET', (i) => (i.accountInfo.address = evmAddress.slice(0, 41)), 'accountInfo.address'],
  ['Solana address with a 0', 'SOLANA_WALLET', (i) => (i.accountInfo.address = '0'.repeat(44)), 'accountInfo.address'],
  ['Tron address not starting with T', 'TRON_WALLET', (i) => (i.accountInfo.address = `A${'1'.repeat(33)}`), 'accountInfo.address'],
  ['Spark address of another network', 'SPARK_WALLET', (i) => (i.accountInfo.address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'), 'accountInfo.address'],
  ['wallet address missing', 'BASE_WALLET', (i) => delete i.accountInfo.address, 'accountInfo.address'],
  // Lightning: exactly one of three
  ['Lightning with none of the three', 'LIGHTNING', (i) => delete i.accountInfo.invoice, 'accountInfo.lightningAddress'],
  ['Lightning with invoice and address (the later one is flagged)', 'LIGHTNING', (i) => (i.accountInfo.lightningAddress = 'a@example.com'), 'accountInfo.invoice'],
  ['Lightning with invoice and bolt12', 'LIGHTNING', (i) => (i.accountInfo.bolt12 = 'lno1qcp4256ypq'), 'accountInfo.bolt12'],
  ['Lightning address without domain', 'LIGHTNING_ACCOUNT', (i) => (i.accountInfo.lightningAddress = 'satoshi'), 'accountInfo.lightningAddress'],
  ['Lightning invoice that is not BOLT11', 'LIGHTNING', (i) => (i.accountInfo.invoice = 'bitcoin:bc1q'), 'accountInfo.invoice'],
  ['BOLT12 offer with the wrong prefix', 'LIGHTNING', (i) => (i.accountInfo = { accountType: 'LIGHTNING', bolt12: 'lni1qqq' }), 'accountInfo.bolt12'],
  // beneficiary
  ['fiat account without beneficiary', 'USD_ACCOUNT', (i) => delete i.accountInfo.beneficiary, 'accountInfo.beneficiary'],
  ['beneficiary without beneficiaryType', 'EUR_ACCOUNT', (i) => delete i.accountInfo.beneficiary.beneficiaryType, 'accountInfo.beneficiary.beneficiaryType'],
  ['beneficiaryType unknown', 'EUR_ACCOUNT', (i) => (i.accountInfo.beneficiary.beneficiaryType = 'TRUST'), 'accountInfo.beneficiary.beneficiaryType'],
  ['individual without fullName', 'NGN_ACCOUNT', (i) => delete i.accountInfo.beneficiary.fullName, 'accountInfo.beneficiary.fullName'],
  ['individual birthDate not a date', 'NGN_ACCOUNT', (i) => (i.accountInfo.beneficiary.birthDate = '1990-02-30'), 'accountInfo.beneficiary.birthDate'],
  ['beneficiary nationality not alpha-2', 'NGN_ACCOUNT', (i) => (i.accountInfo.beneficiary.nationality = 'NGA'), 'accountInfo.beneficiary.nationality'],
  ['beneficiary phone not E.164', 'NGN_ACCOUNT', (i) => (i.accountInfo.beneficiary.phoneNumber = '0803 123 4567'), 'accountInfo.beneficiary.phoneNumber'],
  ['beneficiary documentType unknown', 'COP_ACCOUNT', (i) => (i.accountInfo.beneficiary.documentType = 'DNI'), 'accountInfo.beneficiary.documentType'],
  ['beneficiary address country not alpha-2', 'USD_ACCOUNT', (i) => (i.accountInfo.beneficiary.address.country = 'USA'), 'accountInfo.beneficiary.address.country'],
  ['USD individual without postalCode', 'USD_ACCOUNT', (i) => delete i.accountInfo.beneficiary.address.postalCode, 'accountInfo.beneficiary.address.postalCode'],
  ['USD individual without address', 'USD_ACCOUNT', (i) => delete i.accountInfo.beneficiary.address, 'accountInfo.beneficiary.address'],
  ['EUR individual without address', 'EUR_ACCOUNT', (i) => delete i.accountInfo.beneficiary.address, 'accountInfo.beneficiary.address'],
  ['GBP individual without city', 'GBP_ACCOUNT', (i) => delete i.accountInfo.beneficiary.address.city, 'accountInfo.beneficiary.address.city'],
  ['AED individual without address', 'AED_ACCOUNT', (i) => delete i.accountInfo.beneficiary.address, 'accountInfo.beneficiary.address'],
  ['GTQ beneficiary without phoneNumber', 'GTQ_ACCOUNT', (i) => delete i.accountInfo.beneficiary.phoneNumber, 'accountInfo.beneficiary.phoneNumber'],
  ['GTQ beneficiary without countryOfResidence', 'GTQ_ACCOUNT', (i) => delete i.accountInfo.beneficiary.countryOfResidence, 'accountInfo.beneficiary.countryOfResidence'],
  ['JMD beneficiary without phoneNumber', 'JMD_ACCOUNT', (i) => delete i.accountInfo.beneficiary.phoneNumber, 'accountInfo.beneficiary.phoneNumber'],
  ['JMD beneficiary without address', 'JMD_ACCOUNT', (i) => delete i.accountInfo.beneficiary.address, 'accountInfo.beneficiary.address'],
  ['JMD business without phoneNumber', 'JMD_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), phoneNumber: undefined }), 'accountInfo.beneficiary.phoneNumber'],
  ['business without legalName', 'MXN_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), legalName: undefined }), 'accountInfo.beneficiary.legalName'],
  ['USD business without address', 'USD_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), address: undefined }), 'accountInfo.beneficiary.address'],
  ['EUR business without registrationNumber', 'EUR_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), registrationNumber: undefined }), 'accountInfo.beneficiary.registrationNumber'],
  ['KES business without taxId', 'KES_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), taxId: undefined }), 'accountInfo.beneficiary.taxId'],
  ['XAF business without registrationNumber', 'XAF_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), registrationNumber: undefined }), 'accountInfo.beneficiary.registrationNumber'],
  ['ILS business without address', 'ILS_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), address: undefined }), 'accountInfo.beneficiary.address'],
  ['businessInfo.legalName contradicting legalName', 'USD_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), businessInfo: { legalName: 'Other Inc' } }), 'accountInfo.beneficiary.businessInfo.legalName'],
  ['wallet individual beneficiary without countryOfResidence', 'BASE_WALLET', (i) => (i.accountInfo.beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada' }), 'accountInfo.beneficiary.countryOfResidence'],
  ['wallet beneficiary of unknown type', 'SOLANA_WALLET', (i) => (i.accountInfo.beneficiary = { beneficiaryType: 'NOBODY' }), 'accountInfo.beneficiary.beneficiaryType'],
];

describe('structural problems are 400 INVALID_INPUT naming the field', () => {
  it.each(STRUCTURAL)('%s', (_name, type, change, field) => {
    const e = failure(variant(type, change));
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_INPUT');
    expect(fields(e)).toContain(field);
  });

  it('a non-object accountInfo names accountInfo', () => {
    expect(fields(failure({ currency: 'USD', accountInfo: 'x' }))).toEqual(['accountInfo']);
  });

  it('names every bad field at once, accountInfo and beneficiary alike', () => {
    const input = variant('USD_ACCOUNT', (i) => {
      i.currency = 'MXN';
      i.accountInfo.accountNumber = '1';
      i.accountInfo.routingNumber = 'x';
      delete i.accountInfo.routingNumber;
      i.accountInfo.accountNumber = '1';
      i.accountInfo.beneficiary.fullName = '';
      delete i.accountInfo.beneficiary.address.country;
    });
    expect(fields(failure(input)).sort()).toEqual(
      ['currency', 'accountInfo.accountNumber', 'accountInfo.routingNumber', 'accountInfo.beneficiary.fullName', 'accountInfo.beneficiary.address.country'].sort(),
    );
  });

  it('reports structure before checksums: a bad routing checksum waits for the malformed accountNumber', () => {
    const e = failure(variant('USD_ACCOUNT', (i) => Object.assign(i.accountInfo, { routingNumber: '021000022', accountNumber: '12' })));
    expect(e.code).toBe('INVALID_INPUT');
    expect(fields(e)).toEqual(['accountInfo.accountNumber']);
  });

  it('accepts REF\'s body: paymentRails and countries ignored, no bankName, bankAccountType CHECKING by default, swiftBic read as swiftCode', () => {
    const usd = variant('USD_ACCOUNT', (i) => {
      delete i.accountInfo.bankName;
      delete i.accountInfo.bankAccountType;
      Object.assign(i.accountInfo, { paymentRails: ['WIRE'], countries: ['US'] });
    });
    const v = validateAccountInfo(usd as any);
    expect(v.accountInfo.bankAccountType).toBe('CHECKING');
    expect(v.accountInfo).not.toHaveProperty('countries');
    expect(v.paymentRails).toEqual(['ACH', 'WIRE', 'RTP', 'FEDNOW']);
    const eur = variant('EUR_ACCOUNT', (i) => {
      delete i.accountInfo.bankName;
      delete i.accountInfo.swiftCode;
      i.accountInfo.swiftBic = 'COBADEFFXXX';
    });
    expect(validateAccountInfo(eur as any).accountInfo.swiftCode).toBe('COBADEFFXXX');
  });
});

const TRON_BAD_CHECKSUM = bs58check.encode(Uint8Array.from([0x41, ...new Uint8Array(20).fill(9)])).replace(/.$/, (c) => (c === '1' ? '2' : '1'));
const SPARK_BAD_PAYLOAD = bech32m.encode('spark', bech32m.toWords(Uint8Array.from([0x12, ...sparkPayload.slice(1)])), false);

const CHECKSUM: Array<[string, (typeof ACCOUNT_TYPES)[number], (i: Input) => void, string]> = [
  ['ABA routing checksum', 'USD_ACCOUNT', (i) => (i.accountInfo.routingNumber = '021000022'), 'accountInfo.routingNumber'],
  ['ABA intermediary routing checksum', 'USD_ACCOUNT', (i) => (i.accountInfo.intermediaryRoutingNumber = '011000016'), 'accountInfo.intermediaryRoutingNumber'],
  ['CLABE control digit', 'MXN_ACCOUNT', (i) => (i.accountInfo.clabeNumber = '032180000118359718'), 'accountInfo.clabeNumber'],
  ['EUR IBAN mod-97', 'EUR_ACCOUNT', (i) => (i.accountInfo.iban = 'DE89370400440532013001'), 'accountInfo.iban'],
  ['EUR IBAN length for its country', 'EUR_ACCOUNT', (i) => (i.accountInfo.iban = 'DE8937040044053201300'), 'accountInfo.iban'],
  ['EUR IBAN of a country without IBANs', 'EUR_ACCOUNT', (i) => (i.accountInfo.iban = 'US12345678901234567890'), 'accountInfo.iban'],
  ['BIC naming no country', 'EUR_ACCOUNT', (i) => (i.accountInfo.swiftCode = 'COBAXXFF'), 'accountInfo.swiftCode'],
  ['AED IBAN mod-97', 'AED_ACCOUNT', (i) => (i.accountInfo.iban = 'AE070331234567890123457'), 'accountInfo.iban'],
  ['ILS IBAN mod-97', 'ILS_ACCOUNT', (i) => (i.accountInfo.iban = 'IL620108000000099999998'), 'accountInfo.iban'],
  ['EGP IBAN mod-97', 'EGP_ACCOUNT', (i) => (i.accountInfo.iban = 'EG380019000500000000263180003'), 'accountInfo.iban'],
  ['PKR IBAN mod-97', 'PKR_ACCOUNT', (i) => (i.accountInfo.iban = 'PK36SCBL0000001123456703'), 'accountInfo.iban'],
  ['DKK IBAN mod-97', 'DKK_ACCOUNT', (i) => (i.accountInfo.iban = 'DK5000400440116244'), 'accountInfo.iban'],
  ['SWIFT IBAN mod-97', 'SWIFT_ACCOUNT', (i) => (i.accountInfo.iban = 'GB29NWBK60161331926818'), 'accountInfo.iban'],
  ['CPF pix key check digits', 'BRL_ACCOUNT', (i) => (i.accountInfo.pixKey = '52998224724'), 'accountInfo.pixKey'],
  ['CNPJ pix key check digits', 'BRL_ACCOUNT', (i) => Object.assign(i.accountInfo, { pixKeyType: 'CNPJ', pixKey: '11222333000182' }), 'accountInfo.pixKey'],
  ['BRL taxId check digits', 'BRL_ACCOUNT', (i) => (i.accountInfo.taxId = '11222333000182'), 'accountInfo.taxId'],
  ['EIP-55 mixed-case checksum', 'ETHEREUM_WALLET', (i) => (i.accountInfo.address = `${evmAddress.slice(0, 41)}${flipCase(evmAddress.slice(41))}`), 'accountInfo.address'],
  ['Solana key of 31 bytes', 'SOLANA_WALLET', (i) => (i.accountInfo.address = bs58.encode(new Uint8Array(31).fill(200))), 'accountInfo.address'],
  ['Tron base58check checksum', 'TRON_WALLET', (i) => (i.accountInfo.address = TRON_BAD_CHECKSUM), 'accountInfo.address'],
  ['Spark bech32m checksum', 'SPARK_WALLET', (i) => (i.accountInfo.address = i.accountInfo.address.replace(/.$/, (c: string) => (c === 'q' ? 'p' : 'q'))), 'accountInfo.address'],
  ['Spark payload without an identity key', 'SPARK_WALLET', (i) => (i.accountInfo.address = SPARK_BAD_PAYLOAD), 'accountInfo.address'],
  ['BOLT11 checksum', 'LIGHTNING', (i) => (i.accountInfo.invoice = bolt11Invoice.replace(/l$/, 'm')), 'accountInfo.invoice'],
];

function flipCase(s: string): string {
  return [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

describe('checksum failures are 400 INVALID_BANK_ACCOUNT naming the field', () => {
  it.each(CHECKSUM)('%s', (_name, type, change, field) => {
    const e = failure(variant(type, change));
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_BANK_ACCOUNT');
    expect(fields(e)).toEqual([field]);
  });

  it('accepts an all-lowercase EVM address (EIP-55: no checksum to check)', () => {
    expect(() => validateAccountInfo(variant('BASE_WALLET', (i) => (i.accountInfo.address = evmAddress.toLowerCase())))).not.toThrow();
  });
});

describe('accepted variants and normalisation', () => {
  const ok = (input: Input) => validateAccountInfo(input);

  it('strips unknown fields and keeps accountType as sent', () => {
    const out = ok(variant('LIGHTNING_ACCOUNT', (i) => (i.accountInfo.nickname = 'x')));
    expect(out.accountInfo).toEqual({ accountType: 'LIGHTNING_ACCOUNT', lightningAddress: 'satoshi@example.com' });
  });

  it('stores a printed IBAN in electronic form', () => {
    const out = ok(variant('EUR_ACCOUNT', (i) => (i.accountInfo.iban = 'de89 3704 0044 0532 0130 00')));
    expect(out.accountInfo.iban).toBe(IBANS.DE);
  });

  it.each([
    ['COP mobile money', 'COP_ACCOUNT', { bankName: 'NEQUI', phoneNumber: '+573001234567' }],
    ['SLV bank transfer', 'SLV_ACCOUNT', { bankName: 'BANCO_AGRICOLA', accountNumber: '1234567890', bankAccountType: 'SAVINGS' }],
    ['BDT mobile money', 'BDT_ACCOUNT', { bankName: 'BKASH', phoneNumber: '+8801712345678' }],
    ['EGP mobile money', 'EGP_ACCOUNT', { bankName: 'VODAFONE_CASH', phoneNumber: '+201001234567' }],
    ['GHS bank transfer', 'GHS_ACCOUNT', { bankName: 'GCB_BANK', accountNumber: '1011130012345' }],
    ['PKR mobile money', 'PKR_ACCOUNT', { bankName: 'JAZZCASH', phoneNumber: '+923001234567' }],
    ['PKR bank transfer without IBAN', 'PKR_ACCOUNT', { bankName: 'MCB_BANK', accountNumber: '0123456789' }],
    ['INR UPI', 'INR_ACCOUNT', { vpa: 'ada.lovelace@okaxis' }],
    ['INR RTGS with bankName', 'INR_ACCOUNT', { accountNumber: '123456789', ifsc: 'HDFC0000123', rail: 'RTGS', bankName: 'HDFC_BANK' }],
    ['EUR without swiftCode', 'EUR_ACCOUNT', { iban: IBANS.DE, bankName: 'Commerzbank' }],
    ['SGD without bankName', 'SGD_ACCOUNT', { accountNumber: '0123456789', swiftCode: 'DBSSSGSG' }],
    ['SWIFT with accountNumber only', 'SWIFT_ACCOUNT', { country: 'CH', swiftCode: 'UBSWCHZH80A', bankName: 'UBS', accountNumber: '0123456789' }],
    ['XOF Benin 8 digits', 'XOF_ACCOUNT', { phoneNumber: '+22961234567', provider: 'XOF_MOBILE_2' }],
    ['XOF Benin 9 digits', 'XOF_ACCOUNT', { phoneNumber: '+229612345678', provider: 'XOF_MOBILE_2' }],
    ["XOF Côte d'Ivoire 10 digits", 'XOF_ACCOUNT', { phoneNumber: '+2250712345678', provider: 'XOF_MOBILE_3' }],
    ['BRL EMAIL pix key', 'BRL_ACCOUNT', { pixKey: 'ada@example.com', pixKeyType: 'EMAIL', bankName: 'Nubank', taxId: '11222333000181' }],
    ['BRL RANDOM pix key', 'BRL_ACCOUNT', { pixKey: '123e4567-e89b-42d3-a456-426614174000', pixKeyType: 'RANDOM', bankName: 'Nubank', taxId: '52998224725' }],
  ] as const)('%s', (_name, type, info) => {
    expect(() => ok({ currency: validExample(type).currency, accountInfo: { accountType: type, ...info, beneficiary: person() } })).not.toThrow();
  });

  it('CNY bank transfer to a business', () => {
    const out = ok({ currency: 'CNY', accountInfo: { accountType: 'CNY_ACCOUNT', bankName: 'BANK_OF_CHINA', accountNumber: '6222021234567890', beneficiary: company() } });
    expect(out.paymentRails).toEqual(['BANK_TRANSFER']);
  });

  it('Lightning by BOLT12 offer and by address', () => {
    expect(() => ok({ currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', bolt12: 'lno1qcp4256ypq' } })).not.toThrow();
    expect(() => ok({ currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', lightningAddress: 'a.b+tip@pay.example.org' } })).not.toThrow();
  });

  it('ETHEREUM_WALLET carries USDC and USDT; SPARK_WALLET BTC and USDB', () => {
    for (const currency of ['USDC', 'USDT']) expect(() => ok({ ...validExample('ETHEREUM_WALLET'), currency })).not.toThrow();
    for (const currency of ['BTC', 'USDB']) expect(() => ok({ ...validExample('SPARK_WALLET'), currency })).not.toThrow();
  });

  it('MXN, BRL and PHP individuals need no address', () => {
    for (const type of ['MXN_ACCOUNT', 'BRL_ACCOUNT', 'PHP_ACCOUNT'] as const) {
      expect(() => ok(variant(type, (i) => (i.accountInfo.beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada' })))).not.toThrow();
    }
  });

  it('AED and JMD addresses need no postal code', () => {
    const address = { line1: '1 Sheikh Zayed Rd', city: 'Dubai', country: 'AE' };
    expect(() => ok(variant('AED_ACCOUNT', (i) => (i.accountInfo.beneficiary.address = address)))).not.toThrow();
    expect(() => ok(variant('JMD_ACCOUNT', (i) => (i.accountInfo.beneficiary.address = { ...address, country: 'JM' })))).not.toThrow();
  });

  it('folds businessInfo {legalName, taxId} into the top level', () => {
    const beneficiary = { ...company(), legalName: undefined, taxId: undefined, businessInfo: { legalName: 'Acme Ltd', taxId: '12-3456789' } };
    const out = ok(variant('USD_ACCOUNT', (i) => (i.accountInfo.beneficiary = beneficiary)));
    expect(out.accountInfo.beneficiary).toMatchObject({ beneficiaryType: 'BUSINESS', legalName: 'Acme Ltd', taxId: '12-3456789' });
    expect(out.accountInfo.beneficiary).not.toHaveProperty('businessInfo');
  });

  it('wallets accept no beneficiary, or a valid one', () => {
    expect(ok(validExample('TRON_WALLET')).accountInfo).not.toHaveProperty('beneficiary');
    const withOne = ok(variant('TRON_WALLET', (i) => (i.accountInfo.beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada', countryOfResidence: 'FR' })));
    expect(withOne.accountInfo.beneficiary).toEqual({ beneficiaryType: 'INDIVIDUAL', fullName: 'Ada', countryOfResidence: 'FR' });
  });
});

describe('business senders (spec: registrationNumber for GBP, INR, BRL, ... ILS)', () => {
  it.each([
    ['GBP', true], ['INR', true], ['BRL', true], ['DKK', true], ['PHP', true], ['HKD', true], ['IDR', true], ['MYR', true],
    ['SGD', true], ['THB', true], ['VND', true], ['AED', true], ['ILS', true], ['USD', false], ['EUR', false], ['KES', false],
  ] as const)('%s → %s', (currency, expected) => {
    expect(senderBusinessRegistrationRequired(currency)).toBe(expected);
  });

  it("requires the business beneficiary's registrationNumber only when the sender is a business", () => {
    const input = variant('GBP_ACCOUNT', (i) => (i.accountInfo.beneficiary = { ...company(), registrationNumber: undefined }));
    expect(() => validateAccountInfo(input)).not.toThrow();
    expect(fields(failure({ ...input, isBusinessSender: true }))).toEqual(['accountInfo.beneficiary.registrationNumber']);
  });
});

describe('paymentRails (decisions B§5.9)', () => {
  const rails = (type: (typeof ACCOUNT_TYPES)[number], change: (i: Input) => void = () => {}) => validateAccountInfo(variant(type, change)).paymentRails;

  it('by type', () => {
    expect(rails('USD_ACCOUNT')).toEqual(['ACH', 'WIRE', 'RTP', 'FEDNOW']);
    expect(rails('EUR_ACCOUNT')).toEqual(['SEPA', 'SEPA_INSTANT']);
    expect(rails('DKK_ACCOUNT')).toEqual(['SEPA', 'SEPA_INSTANT']);
    expect(rails('GBP_ACCOUNT')).toEqual(['FASTER_PAYMENTS']);
    expect(rails('MXN_ACCOUNT')).toEqual(['SPEI']);
    expect(rails('BRL_ACCOUNT')).toEqual(['PIX']);
    expect(rails('SGD_ACCOUNT')).toEqual(['PAYNOW', 'FAST', 'BANK_TRANSFER']);
    expect(rails('SWIFT_ACCOUNT')).toEqual(['SWIFT']);
    expect(rails('KES_ACCOUNT')).toEqual(['MOBILE_MONEY']);
    expect(rails('XAF_ACCOUNT')).toEqual(['MOBILE_MONEY']);
    expect(rails('ZAR_ACCOUNT')).toEqual(['BANK_TRANSFER']);
    expect(rails('ILS_ACCOUNT')).toEqual(['BANK_TRANSFER']);
  });

  it('narrowed to the variant an account uses', () => {
    expect(rails('COP_ACCOUNT')).toEqual(['BANK_TRANSFER']);
    expect(rails('SLV_ACCOUNT')).toEqual(['MOBILE_MONEY']);
    expect(rails('CNY_ACCOUNT')).toEqual(['MOBILE_MONEY']);
    expect(rails('INR_ACCOUNT')).toEqual(['NEFT']);
    expect(rails('INR_ACCOUNT', (i) => (i.accountInfo = { accountType: 'INR_ACCOUNT', vpa: 'ada@okaxis', beneficiary: person() }))).toEqual(['UPI']);
  });

  it('none for wallets and Lightning', () => {
    for (const type of ['BASE_WALLET', 'ETHEREUM_WALLET', 'POLYGON_WALLET', 'PLASMA_WALLET', 'SOLANA_WALLET', 'SPARK_WALLET', 'TRON_WALLET', 'LIGHTNING', 'LIGHTNING_ACCOUNT'] as const) {
      expect(rails(type)).toEqual([]);
    }
  });

  it('is exported for stored accounts too', () => {
    expect(paymentRailsFor('GHS_ACCOUNT', { bankName: 'X', phoneNumber: '+233241234567' })).toEqual(['MOBILE_MONEY']);
  });
});

describe('identifierLast3 drives sandbox magic values (decision A9)', () => {
  const last3 = (type: (typeof ACCOUNT_TYPES)[number], change: (i: Input) => void) => validateAccountInfo(variant(type, change)).identifierLast3;

  it('takes the account number, IBAN, CLABE, phone or address', () => {
    expect(last3('USD_ACCOUNT', (i) => (i.accountInfo.accountNumber = '100000002'))).toBe('002');
    expect(last3('EUR_ACCOUNT', () => {})).toBe('000');
    expect(last3('MXN_ACCOUNT', () => {})).toBe('719');
    expect(last3('KES_ACCOUNT', (i) => (i.accountInfo.phoneNumber = '+254712345008'))).toBe('008');
    expect(last3('BASE_WALLET', () => {})).toBe(evmAddress.slice(-3));
  });

  it("uses a Lightning address's user part, which a tester controls", () => {
    expect(last3('LIGHTNING_ACCOUNT', (i) => (i.accountInfo.lightningAddress = 'test005@example.com'))).toBe('005');
  });
});

describe('mobile-money operator codes', () => {
  it('placeholder lists have the counts the spec gives', async () => {
    const { providerCodesFor } = await import('../../../src/domains/external-accounts/account-types.js');
    const counts = Object.fromEntries(['KES', 'TZS', 'ZMW', 'RWF', 'MWK', 'UGX'].map((c) => [c, providerCodesFor(c).length]));
    expect(counts).toEqual({ KES: 1, TZS: 2, ZMW: 4, RWF: 2, MWK: 2, UGX: 2 });
  });

  it('operators can replace them at boot', () => {
    configureProviderCodes({ KES: ['MPESA_KE'] });
    expect(() => validateAccountInfo(variant('KES_ACCOUNT', (i) => (i.accountInfo.provider = 'MPESA_KE')))).not.toThrow();
    // The sandbox's name is no longer on the list (the placeholder codes stay accepted as aliases, issue 25).
    const e = failure(variant('KES_ACCOUNT', (i) => (i.accountInfo.provider = 'M-PESA')));
    expect(e.details?.errors).toEqual([expect.objectContaining({ field: 'accountInfo.provider', constraint: { enum: ['MPESA_KE'] } })]);
  });
});

describe('discoveries', () => {
  it('lists the banks PHP accounts may name', () => {
    const names = findBanks('PH', 'PHP').map((b) => b.bankName);
    expect(names).toContain('BDO_UNIBANK');
    expect(isDiscoveredBank('PH', 'PHP', 'BDO_UNIBANK')).toBe(true);
    expect(isDiscoveredBank('PH', 'PHP', 'bdo_unibank')).toBe(false);
    expect(isDiscoveredBank('US', 'USD', 'BDO_UNIBANK')).toBe(false);
  });

  it('lists exactly the two CNY wallet names the CNY wallet variant allows', () => {
    const names = findBanks('CN', 'CNY').map((b) => b.bankName);
    expect(names.filter((n) => (CNY_WALLET_NAMES as readonly string[]).includes(n)).sort()).toEqual([...CNY_WALLET_NAMES].sort());
  });

  it('has at least 3 entries per country, unique per country and currency', () => {
    const all = findBanks();
    const perCountry = new Map<string, number>();
    for (const e of all) perCountry.set(e.country, (perCountry.get(e.country) ?? 0) + 1);
    for (const [country, n] of perCountry) expect(n, country).toBeGreaterThanOrEqual(3);
    const keys = all.map((e) => `${e.country}/${e.currency}/${e.bankName}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('filters by country and by currency', () => {
    expect(findBanks(undefined, 'XOF').map((b) => b.country).sort()).toEqual(expect.arrayContaining(['BJ', 'CI', 'SN']));
    expect(findBanks('SV').every((b) => b.currency === 'USD')).toBe(true);
    expect(findBanks('ZZ')).toEqual([]);
  });
});

describe('checksum primitives against published vectors', () => {
  it('ABA', () => {
    expect(['011000015', '021000021', '026009593'].every(isValidAbaRouting)).toBe(true);
    expect(isValidAbaRouting('026009594')).toBe(false);
  });
  it('CLABE', () => {
    expect(isValidClabe('032180000118359719')).toBe(true);
    expect(isValidClabe('002010077777777771')).toBe(true);
    expect(isValidClabe('002010077777777772')).toBe(false);
  });
  it('CPF and CNPJ', () => {
    expect(isValidCpf('52998224725')).toBe(true);
    expect(isValidCpf('11111111111')).toBe(false);
    expect(isValidCnpj('11222333000181')).toBe(true);
    expect(isValidCnpj('11444777000161')).toBe(true);
    expect(isValidCnpj('11444777000162')).toBe(false);
  });
});
