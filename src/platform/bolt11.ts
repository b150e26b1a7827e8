import { createRequire } from 'node:module';

type Bolt11 = typeof import('bolt11');
let lib: Bolt11 | undefined;
/**
 * The one BOLT11 library (encode, sign, decode with signature check), loaded on first use: it pulls
 * in bitcoinjs-lib, which the API and worker need not load at start.
 */
export const bolt11Lib = (): Bolt11 => (lib ??= createRequire(import.meta.url)('bolt11') as Bolt11);

/** Decodes and checks a BOLT11 invoice (bech32 checksum, fields, signature); throws when it is not one. */
export function decodeBolt11(invoice: string) {
  return bolt11Lib().decode(invoice);
}
