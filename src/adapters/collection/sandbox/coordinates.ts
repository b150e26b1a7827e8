import { createHmac } from 'node:crypto';
import { composeIBAN } from 'ibantools';
import { base58, checksumAddress } from '../../../platform/crypto-addresses.js';
import type { OpenCoordinatesRequest, PaymentInstructionsWire } from '../port.js';

/**
 * The sandbox collection bank's coordinates: derived from the internal account and the rail (HMAC), so the
 * same account always gets the same numbers, and each passes the spec's account-number rules (ABA routing
 * checksum, CLABE control digit, IBAN mod-97, EIP-55, a 32-byte Solana key) though nobody holds them.
 */
export const SANDBOX_COLLECTION_RAILS: Readonly<Record<string, readonly string[]>> = {
  USD: ['ACH', 'WIRE', 'SWIFT'],
  EUR: ['SEPA'],
  MXN: ['SPEI'],
  BRL: ['PIX'],
  USDC: ['SOLANA', 'BASE'],
};

/** Valid ABA routing numbers of the sandbox bank (ACH/RTP and wire). */
const ACH_ROUTING = '021000021';
const WIRE_ROUTING = '026009593';
const BANK = { bankName: 'Sandbox Collection Bank', bankAddress: '1 Sandbox Plaza, New York, NY 10004' };

function seed(account: string, rail: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0, filled = 0; filled < length; i++) {
    const block = createHmac('sha256', 'svc-sandbox-collection').update(`${account}|${rail}|${i}`).digest();
    filled += block.copy(out, filled, 0, Math.min(block.length, length - filled));
  }
  return out;
}

function digits(account: string, rail: string, n: number): string {
  return Array.from(seed(account, `${rail}#d`, n), (b) => String(b % 10)).join('');
}

/** CLABE: bank (3) + plaza (3) + account (11) + the Banxico control digit (weights 3,7,1, products mod 10). */
export function clabeWithCheckDigit(first17: string): string {
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * weights[i % 3]!) % 10;
  return `${first17}${(10 - (sum % 10)) % 10}`;
}

/** CRC16-CCITT (0x1021, init 0xFFFF): the checksum of an EMV (PIX BR Code) payload. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const emv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** A static PIX BR Code (no amount: a standing key) for `pixKey`, with its CRC. */
function pixQrCode(pixKey: string, name: string): string {
  const account = emv('26', emv('00', 'br.gov.bcb.pix') + emv('01', pixKey));
  const body = emv('00', '01') + account + emv('52', '0000') + emv('53', '986') + emv('58', 'BR') + emv('59', name.slice(0, 25) || 'SANDBOX') + emv('60', 'SAO PAULO') + emv('62', emv('05', '***')) + '6304';
  return `${body}${crc16(body)}`;
}

function uuidFrom(bytes: Buffer): string {
  const b = Buffer.from(bytes.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export interface SandboxCoordinates {
  /** What credits name: unique per rail and account. */
  reference: string;
  instructions: PaymentInstructionsWire;
}

/** The coordinates of `req` (undefined: the sandbox bank has no such rail for the currency). */
export function sandboxCoordinates(req: OpenCoordinatesRequest): SandboxCoordinates | undefined {
  const { internalAccountId: account, rail, isPlatformAccount } = req;
  const accountNumber = `88${digits(account, rail, 10)}`;
  const note = (what: string) => `${what} Credits to these coordinates reach ${isPlatformAccount ? 'the platform\'s' : 'the customer\'s'} ${req.currency} internal account.`;
  switch (rail) {
    case 'ACH':
    case 'WIRE':
      return {
        reference: `${rail}:${accountNumber}`,
        instructions: {
          instructionsNotes: note(rail === 'ACH' ? 'Send by ACH to this account; no reference is needed.' : 'Send a domestic wire to this account; no reference is needed.'),
          isPlatformAccount,
          accountOrWalletInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: rail === 'ACH' ? ACH_ROUTING : WIRE_ROUTING, ...BANK, bankAccountType: 'CHECKING', paymentRails: [rail], reference: accountNumber },
        },
      };
    case 'SWIFT':
      return {
        reference: `SWIFT:${accountNumber}`,
        instructions: {
          instructionsNotes: note('Send an international wire (SWIFT MT103); the beneficiary name must read exactly as accountHolderName.'),
          isPlatformAccount,
          accountOrWalletInfo: { accountType: 'SWIFT_ACCOUNT', swiftCode: 'SBXCUS33', country: 'US', accountNumber, accountHolderName: req.accountHolderName, ...BANK, paymentRails: ['SWIFT'] },
        },
      };
    case 'SPEI': {
      const clabeNumber = clabeWithCheckDigit(`646180${digits(account, rail, 11)}`);
      return {
        reference: `SPEI:${clabeNumber}`,
        instructions: {
          instructionsNotes: note('Send by SPEI to this CLABE.'),
          isPlatformAccount,
          accountOrWalletInfo: { accountType: 'MXN_ACCOUNT', clabeNumber, bankName: 'Sandbox STP', paymentRails: ['SPEI'], reference: clabeNumber },
        },
      };
    }
    case 'PIX': {
      const pixKey = uuidFrom(seed(account, rail, 16));
      return {
        reference: `PIX:${pixKey}`,
        instructions: {
          instructionsNotes: note('Pay by PIX to this key, or scan the QR code.'),
          isPlatformAccount,
          accountOrWalletInfo: { accountType: 'BRL_ACCOUNT', pixKey, pixKeyType: 'RANDOM', qrCode: pixQrCode(pixKey, req.accountHolderName), paymentRails: ['PIX'] },
        },
      };
    }
    case 'SEPA': {
      const iban = composeIBAN({ countryCode: 'LT', bban: `30000${digits(account, rail, 11)}` });
      if (!iban) return undefined;
      return {
        reference: `SEPA:${iban}`,
        instructions: {
          instructionsNotes: note('Send a SEPA credit transfer to this IBAN.'),
          isPlatformAccount,
          accountOrWalletInfo: { accountType: 'EUR_ACCOUNT', iban, swiftCode: 'SBXCLT22', bankName: 'Sandbox Collection Bank Europe', paymentRails: ['SEPA'], reference: iban },
        },
      };
    }
    case 'SOLANA': {
      const address = base58.encode(seed(account, rail, 32));
      return { reference: `SOLANA:${address}`, instructions: { instructionsNotes: note(`Send ${req.currency} on Solana only.`), isPlatformAccount, accountOrWalletInfo: { accountType: 'SOLANA_WALLET', address, assetType: req.currency } } };
    }
    case 'BASE': {
      const address = checksumAddress(`0x${seed(account, rail, 20).toString('hex')}`);
      return { reference: `BASE:${address.toLowerCase()}`, instructions: { instructionsNotes: note(`Send ${req.currency} on Base only.`), isPlatformAccount, accountOrWalletInfo: { accountType: 'BASE_WALLET', address, assetType: req.currency } } };
    }
    default:
      return undefined;
  }
}
