import type { Amount } from './types';

/** Issue 26 (26a): REF PaymentInstructions, as fundingPaymentInstructions and coordinates carry them. */
export interface PaymentInstructions {
  instructionsNotes?: string;
  isPlatformAccount?: boolean;
  accountOrWalletInfo: { accountType: string; paymentRails?: string[] } & Record<string, unknown>;
}

export interface Coordinates {
  id: string;
  internalAccountId: string;
  rail: string;
  status: 'PENDING' | 'OPEN' | 'CLOSING' | 'CLOSED' | 'FAILED';
  paymentInstructions?: PaymentInstructions;
  createdAt: string;
  updatedAt: string;
}

export interface CollectionCredit {
  id: string;
  providerCreditId: string;
  internalAccountId: string | null;
  rail: string;
  amount: Amount;
  status: 'RECEIVED' | 'APPLIED' | 'HELD';
  heldReason?: string;
  transactionId?: string;
  receivedAt: string;
}

/** Field labels in the order a payer needs them; anything else the provider sends follows, by name. */
const FIELDS: Array<[string, string]> = [
  ['accountHolderName', 'Beneficiary name'],
  ['bankName', 'Bank'],
  ['routingNumber', 'Routing number'],
  ['accountNumber', 'Account number'],
  ['swiftCode', 'SWIFT/BIC'],
  ['iban', 'IBAN'],
  ['clabeNumber', 'CLABE'],
  ['pixKey', 'PIX key'],
  ['address', 'Address'],
  ['assetType', 'Asset'],
  ['country', 'Country'],
  ['bankAddress', 'Bank address'],
];
const SKIP = new Set(['accountType', 'paymentRails', 'reference', 'pixKeyType', 'qrCode', 'bankAccountType']);

/** The lines a person copies to pay into the account: labelled, in a payer's order, never an object. */
export function instructionLines(i: PaymentInstructions): Array<{ label: string; value: string }> {
  const info = i.accountOrWalletInfo;
  const known = FIELDS.filter(([k]) => typeof info[k] === 'string' && info[k]).map(([k, label]) => ({ label, value: String(info[k]) }));
  const rest = Object.entries(info)
    .filter(([k, v]) => !SKIP.has(k) && !FIELDS.some(([f]) => f === k) && (typeof v === 'string' || typeof v === 'number'))
    .map(([k, v]) => ({ label: k, value: String(v) }));
  return [...known, ...rest];
}

/** The rail(s) an instruction is for: its paymentRails, else its account type (a wallet's network). */
export function railsOf(i: PaymentInstructions): string {
  const rails = i.accountOrWalletInfo.paymentRails;
  return Array.isArray(rails) && rails.length ? rails.join(', ') : i.accountOrWalletInfo.accountType.replace(/_WALLET$/, '');
}

/** Why a credit was not applied, in words (the API's heldReason values). */
export function heldReasonText(reason: string | undefined): string {
  switch (reason) {
    case 'ACCOUNT_FROZEN':
      return 'The account is frozen';
    case 'ACCOUNT_CLOSED':
      return 'The account is closed';
    case 'ACCOUNT_NOT_ACTIVE':
      return 'The account is not active';
    case 'CURRENCY_MISMATCH':
      return "Sent in another currency than the account's";
    case 'UNMATCHED':
      return 'Matches no coordinates';
    default:
      return reason ?? '—';
  }
}
