/**
 * A deposit detector (real-time funding, spec flow 3 and decisions B§4.3): hands out where a
 * real-time funded quote may be paid — a wallet address per network, a Lightning invoice for the
 * exact amount, a bank account with a unique reference — and reports deposits as they arrive
 * (the sandbox detector through POST /sandbox/deposits). The service matches a deposit on the
 * instruction's `matchKey` and decides what it does (src/domains/funding).
 */

/** Networks and rails a real-time funding currency can arrive on. */
export const FUNDING_NETWORKS: Readonly<Record<string, readonly string[]>> = {
  USDC: ['SOLANA', 'BASE', 'POLYGON', 'ETHEREUM'],
  USDT: ['TRON', 'ETHEREUM'],
  BTC: ['LIGHTNING', 'SPARK'],
  USD: ['RTP', 'FEDNOW'],
};

export interface InstructionsRequest {
  /** Our quote id: instructions are unique to it. */
  quoteId: string;
  currency: string;
  /** The exact amount expected (minor units: sats for BTC). */
  amount: bigint;
  /** Networks to give instructions for (a subset of FUNDING_NETWORKS[currency]). */
  networks: readonly string[];
  createdAt: Date;
  expiresAt: Date;
  /** Whether the funds go to the platform's own balance (no customerId on the quote). */
  isPlatformAccount: boolean;
}

/** One instruction: the wire object (B§4.3 `PaymentInstructions`) and the key a deposit matches on. */
export interface FundingInstructionOut {
  network: string;
  asset: string;
  matchKey: string;
  wire: {
    instructionsNotes?: string;
    isPlatformAccount: boolean;
    accountOrWalletInfo: Record<string, unknown>;
  };
}

export interface DepositDetector {
  /** `sandbox` or an operator module's id. */
  id: string;
  instructionsFor(req: InstructionsRequest): FundingInstructionOut[];
  /** The key a reported deposit matches on: a bank reference, an address on a network, or an invoice. */
  matchKeyOf(deposit: { reference?: string; address?: string; invoice?: string; network?: string }): string | undefined;
}

/** Match keys: references and invoices as given; addresses per network, EVM ones case-insensitively. */
export function matchKeyFor(kind: 'REFERENCE' | 'ADDRESS' | 'INVOICE', value: string, network?: string): string {
  if (kind === 'REFERENCE') return `REF:${value.trim().toUpperCase()}`;
  if (kind === 'INVOICE') return `LN:${value.trim().toLowerCase()}`;
  const evm = network === 'ETHEREUM' || network === 'BASE' || network === 'POLYGON';
  return `ADDR:${network}:${evm ? value.trim().toLowerCase() : value.trim()}`;
}
