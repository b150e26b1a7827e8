import { bech32m } from '@scure/base';
import bs58 from 'bs58';
import bs58check from 'bs58check';
import { privateKeyToAccount } from 'viem/accounts';
import type { AccountType } from '../../../src/domains/external-accounts/account-types.js';

/** Checksum-valid wallet addresses made from fixed keys, so the tests need no network and never change. */
export const evmAddress = privateKeyToAccount(`0x${'11'.repeat(32)}`).address;
export const solanaAddress = bs58.encode(new Uint8Array(32).fill(7));
export const tronAddress = bs58check.encode(Uint8Array.from([0x41, ...new Uint8Array(20).fill(9)]));
export const sparkPayload = Uint8Array.from([0x0a, 0x21, 0x02, ...new Uint8Array(32).fill(5)]);
export const sparkAddress = bech32m.encode('spark', bech32m.toWords(sparkPayload), false);

/** BOLT #11 spec test vector ("Please consider supporting this project"). */
export const bolt11Invoice =
  'lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql';

/** Known-valid IBANs (ECBS/SWIFT registry examples) and BICs. */
export const IBANS = {
  DE: 'DE89370400440532013000',
  AE: 'AE070331234567890123456',
  IL: 'IL620108000000099999999',
  EG: 'EG380019000500000000263180002',
  PK: 'PK36SCBL0000001123456702',
  DK: 'DK5000400440116243',
  GB: 'GB29NWBK60161331926819',
};

/** Satisfies every individual minimum (USD/GBP/EUR address, GTQ/JMD phone and residence, wallets). */
export const person = () => ({
  beneficiaryType: 'INDIVIDUAL',
  fullName: 'Ada Lovelace',
  phoneNumber: '+15555550123',
  countryOfResidence: 'US',
  address: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
});

/** Satisfies every business minimum (legalName, address, registrationNumber, taxId). */
export const company = () => ({
  beneficiaryType: 'BUSINESS',
  legalName: 'Acme Ltd',
  registrationNumber: 'REG-1',
  taxId: 'TAX-1',
  phoneNumber: '+15555550123',
  countryOfResidence: 'US',
  address: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
});

interface Example {
  currency: string;
  accountInfo: Record<string, unknown>;
}

const fiat = (currency: string, fields: Record<string, unknown>, beneficiary: object = person()): Example => ({
  currency,
  accountInfo: { ...fields, beneficiary },
});

/** One valid example per accountType, `accountType` added by `validExample`. */
const EXAMPLES: Record<AccountType, Example> = {
  USD_ACCOUNT: fiat('USD', { accountNumber: '123456789', routingNumber: '021000021', bankAccountType: 'CHECKING', bankName: 'JPMorgan Chase' }),
  MXN_ACCOUNT: fiat('MXN', { clabeNumber: '032180000118359719', bankName: 'BBVA México' }),
  BRL_ACCOUNT: fiat('BRL', { pixKey: '52998224725', pixKeyType: 'CPF', bankName: 'Nubank', taxId: '52998224725' }),
  COP_ACCOUNT: fiat('COP', { bankName: 'BANCOLOMBIA', accountNumber: '12345678901', bankAccountType: 'SAVINGS' }),
  SLV_ACCOUNT: fiat('USD', { phoneNumber: '+50371234567' }),
  EUR_ACCOUNT: fiat('EUR', { iban: IBANS.DE, bankName: 'Commerzbank', swiftCode: 'COBADEFF' }),
  PHP_ACCOUNT: fiat('PHP', { bankName: 'BDO_UNIBANK', accountNumber: '001234567890' }),
  GBP_ACCOUNT: fiat('GBP', { sortCode: '601613', accountNumber: '31926819' }),
  INR_ACCOUNT: fiat('INR', { accountNumber: '123456789012', ifsc: 'SBIN0001234', rail: 'NEFT' }),
  NGN_ACCOUNT: fiat('NGN', { accountNumber: '0123456789', bankName: 'ACCESS_BANK' }),
  ZAR_ACCOUNT: fiat('ZAR', { accountNumber: '123456789', bankName: 'STANDARD_BANK' }),
  CAD_ACCOUNT: fiat('CAD', { bankCode: '003', branchCode: '12345', accountNumber: '1234567' }),
  AED_ACCOUNT: fiat('AED', { iban: IBANS.AE, swiftCode: 'EBILAEAD' }),
  ILS_ACCOUNT: fiat('ILS', { iban: IBANS.IL, bankName: 'BANK_LEUMI' }),
  BDT_ACCOUNT: fiat('BDT', { bankName: 'BRAC_BANK', accountNumber: '1501201234567', branchCode: '123' }),
  BWP_ACCOUNT: fiat('BWP', { phoneNumber: '+26771234567', provider: 'BWP_MOBILE_1' }),
  CNY_ACCOUNT: fiat('CNY', { bankName: 'ALIPAY', phoneNumber: '+8613800138000' }),
  EGP_ACCOUNT: fiat('EGP', { bankName: 'NATIONAL_BANK_OF_EGYPT', iban: IBANS.EG }),
  GHS_ACCOUNT: fiat('GHS', { bankName: 'MTN_MOBILE_MONEY', phoneNumber: '+233241234567' }),
  GTQ_ACCOUNT: fiat('GTQ', { accountNumber: '3000123456', bankAccountType: 'CHECKING', bankName: 'BANCO_INDUSTRIAL' }),
  HTG_ACCOUNT: fiat('HTG', { phoneNumber: '+50934123456' }),
  JMD_ACCOUNT: fiat('JMD', { accountNumber: '123456789', branchCode: '12345', bankAccountType: 'SAVINGS', bankName: 'JN_BANK' }),
  PKR_ACCOUNT: fiat('PKR', { bankName: 'HABIB_BANK_LIMITED', accountNumber: '00011234567802', iban: IBANS.PK }),
  KES_ACCOUNT: fiat('KES', { phoneNumber: '+254712345678', provider: 'KES_MOBILE_1' }),
  TZS_ACCOUNT: fiat('TZS', { phoneNumber: '+255712345678', provider: 'TZS_MOBILE_2' }),
  ZMW_ACCOUNT: fiat('ZMW', { phoneNumber: '+260971234567', provider: 'ZMW_MOBILE_4' }),
  RWF_ACCOUNT: fiat('RWF', { phoneNumber: '+250781234567', provider: 'RWF_MOBILE_1' }),
  MWK_ACCOUNT: fiat('MWK', { phoneNumber: '+265991234567', provider: 'MWK_MOBILE_1' }),
  UGX_ACCOUNT: fiat('UGX', { phoneNumber: '+256771234567', provider: 'UGX_MOBILE_1' }),
  XOF_ACCOUNT: fiat('XOF', { phoneNumber: '+221771234567', provider: 'XOF_MOBILE_1' }),
  XAF_ACCOUNT: fiat('XAF', { phoneNumber: '+237671234567', provider: 'XAF_MOBILE_1', region: 'CM' }),
  DKK_ACCOUNT: fiat('DKK', { iban: IBANS.DK, swiftCode: 'DABADKKK' }),
  HKD_ACCOUNT: fiat('HKD', { bankName: 'HSBC_HONG_KONG', accountNumber: '123456789001', swiftCode: 'HSBCHKHHHKH' }),
  IDR_ACCOUNT: fiat('IDR', { bankName: 'BANK_CENTRAL_ASIA', accountNumber: '1234567890', swiftCode: 'CENAIDJA', phoneNumber: '+6281234567890' }),
  MYR_ACCOUNT: fiat('MYR', { bankName: 'MAYBANK', accountNumber: '114012345678', swiftCode: 'MBBEMYKL' }),
  THB_ACCOUNT: fiat('THB', { bankName: 'BANGKOK_BANK', accountNumber: '1234567890', swiftCode: 'BKKBTHBK' }),
  VND_ACCOUNT: fiat('VND', { bankName: 'VIETCOMBANK', accountNumber: '0011001234567', swiftCode: 'BFTVVNVX' }),
  SGD_ACCOUNT: fiat('SGD', { accountNumber: '0123456789', swiftCode: 'DBSSSGSG' }),
  SWIFT_ACCOUNT: fiat('GBP', { country: 'GB', swiftCode: 'NWBKGB2L', bankName: 'NatWest', iban: IBANS.GB }),
  BASE_WALLET: { currency: 'USDC', accountInfo: { address: evmAddress } },
  ETHEREUM_WALLET: { currency: 'USDT', accountInfo: { address: evmAddress } },
  POLYGON_WALLET: { currency: 'USDC', accountInfo: { address: evmAddress } },
  PLASMA_WALLET: { currency: 'USDT', accountInfo: { address: evmAddress } },
  SOLANA_WALLET: { currency: 'USDC', accountInfo: { address: solanaAddress } },
  TRON_WALLET: { currency: 'USDT', accountInfo: { address: tronAddress } },
  SPARK_WALLET: { currency: 'BTC', accountInfo: { address: sparkAddress } },
  LIGHTNING: { currency: 'BTC', accountInfo: { invoice: bolt11Invoice } },
  LIGHTNING_ACCOUNT: { currency: 'BTC', accountInfo: { lightningAddress: 'satoshi@example.com' } },
};

export const EXAMPLE_TYPES = Object.keys(EXAMPLES) as AccountType[];

/** A fresh, mutable valid input for `type`. */
export function validExample(type: AccountType): { currency: string; accountInfo: Record<string, any> } {
  const { currency, accountInfo } = structuredClone(EXAMPLES[type]);
  return { currency, accountInfo: { accountType: type, ...accountInfo } };
}
