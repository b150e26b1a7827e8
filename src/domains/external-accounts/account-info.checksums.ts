import { bech32m } from '@scure/base';
import { base58, base58check, checksumAddress, decodeUnsafe } from '../../platform/crypto-addresses.js';
import { validateBIC, validateIBAN } from 'ibantools';
import { decodeBolt11 } from '../../platform/bolt11.js';
import type { FieldError } from '../../platform/errors.js';
import type { CanonicalAccountType } from './account-types.js';

/**
 * Check digits and encodings, run only on input that passed the structural schema (so every value here
 * already has the right shape). A failure means "well-formed but not a real account": 400 INVALID_BANK_ACCOUNT.
 */

/** ABA routing number: weights 3,7,1 repeated; the weighted sum is a multiple of 10. */
export function isValidAbaRouting(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  const sum = [...routing].reduce((acc, d, i) => acc + Number(d) * weights[i]!, 0);
  return sum % 10 === 0;
}

/** CLABE (Banxico): weights 3,7,1 over the first 17 digits, each product mod 10; digit 18 completes to 10. */
export function isValidClabe(clabe: string): boolean {
  if (!/^\d{18}$/.test(clabe)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(clabe[i]) * weights[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
}

/** Brazilian CPF: two mod-11 check digits; all-same-digit numbers are formally valid but never issued. */
export function isValidCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const digitsOf = [...cpf].map(Number);
  const check = (len: number) => {
    const sum = digitsOf.slice(0, len).reduce((acc, d, i) => acc + d * (len + 1 - i), 0);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  return check(9) === digitsOf[9] && check(10) === digitsOf[10];
}

/** Brazilian CNPJ: two mod-11 check digits with weights cycling 2..9 from the right. */
export function isValidCnpj(cnpj: string): boolean {
  if (!/^\d{14}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false;
  const digitsOf = [...cnpj].map(Number);
  const check = (len: number) => {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += digitsOf[len - 1 - i]! * ((i % 8) + 2);
    const rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  return check(12) === digitsOf[12] && check(13) === digitsOf[13];
}

/** EIP-55: single-case hex carries no checksum and is accepted; mixed case must match the checksum exactly. */
export function isValidEvmAddress(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return checksumAddress(address) === address;
}

/** A Solana address is an ed25519 public key: base58 of exactly 32 bytes. */
export function isValidSolanaAddress(address: string): boolean {
  return decodeUnsafe(base58, address)?.length === 32;
}

/** A Tron address is base58check of 0x41 followed by a 20-byte account id. */
export function isValidTronAddress(address: string): boolean {
  const bytes = decodeUnsafe(base58check, address);
  return bytes?.length === 21 && bytes[0] === 0x41;
}

/** Spark: bech32m whose payload starts with protobuf field 1 holding a 33-byte compressed secp256k1 key. */
export function isValidSparkAddress(address: string): boolean {
  const decoded = bech32m.decodeUnsafe(address, false);
  if (!decoded) return false;
  const bytes = bech32m.fromWordsUnsafe(decoded.words);
  return !!bytes && bytes.length >= 35 && bytes[0] === 0x0a && bytes[1] === 0x21 && (bytes[2] === 0x02 || bytes[2] === 0x03);
}

/** BOLT11: bech32 checksum and field layout. Expiry is a payment-time concern, not checked here. */
export function isValidBolt11(invoice: string): boolean {
  try {
    decodeBolt11(invoice);
    return true;
  } catch {
    return false;
  }
}

type Check = (value: string, info: Record<string, unknown>) => string | undefined;

const ADDRESS_CHECKS: Partial<Record<CanonicalAccountType, Check>> = {
  BASE_WALLET: evm,
  ETHEREUM_WALLET: evm,
  POLYGON_WALLET: evm,
  PLASMA_WALLET: evm,
  SOLANA_WALLET: (v) => (isValidSolanaAddress(v) ? undefined : 'Not a Solana address: it must decode to a 32-byte public key.'),
  TRON_WALLET: (v) => (isValidTronAddress(v) ? undefined : 'Not a Tron address: its base58check checksum or 0x41 prefix is wrong.'),
  SPARK_WALLET: (v) => (isValidSparkAddress(v) ? undefined : 'Not a Spark address: its bech32m checksum or payload is wrong.'),
};

function evm(v: string): string | undefined {
  return isValidEvmAddress(v) ? undefined : 'The address fails its EIP-55 mixed-case checksum.';
}

/** Checks keyed by field name: the same field means the same identifier in every type that has it. */
const FIELD_CHECKS: Record<string, Check> = {
  iban: (v) => (validateIBAN(v).valid ? undefined : 'The IBAN fails its country length, format or mod-97 check.'),
  swiftCode: (v) => (validateBIC(v).valid ? undefined : 'The BIC/SWIFT code names no known country.'),
  routingNumber: (v) => (isValidAbaRouting(v) ? undefined : 'The ABA routing number fails its checksum.'),
  intermediaryRoutingNumber: (v) => (isValidAbaRouting(v) ? undefined : 'The ABA routing number fails its checksum.'),
  clabeNumber: (v) => (isValidClabe(v) ? undefined : 'The CLABE control digit is wrong.'),
  invoice: (v) => (isValidBolt11(v) ? undefined : 'Not a decodable BOLT11 invoice (bad checksum or fields).'),
  taxId: (v) => (brazilianIdValid(v) ? undefined : 'The CPF/CNPJ check digits are wrong.'),
  pixKey: (v, info) =>
    (info.pixKeyType === 'CPF' || info.pixKeyType === 'CNPJ') && !brazilianIdValid(v) ? 'The CPF/CNPJ check digits are wrong.' : undefined,
};

function brazilianIdValid(v: string): boolean {
  return v.length === 11 ? isValidCpf(v) : isValidCnpj(v);
}

/** Every checksum failure of a structurally valid account info, with paths relative to accountInfo. */
export function checksumErrors(type: CanonicalAccountType, info: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const run = (field: string, check: Check | undefined) => {
    const value = info[field];
    const message = typeof value === 'string' && check ? check(value, info) : undefined;
    if (message) errors.push({ field, message });
  };
  for (const [field, check] of Object.entries(FIELD_CHECKS)) {
    // taxId is only a Brazilian id on BRL accounts; elsewhere it is free text.
    if (field === 'taxId' && type !== 'BRL_ACCOUNT') continue;
    run(field, check);
  }
  run('address', ADDRESS_CHECKS[type]);
  return errors;
}
