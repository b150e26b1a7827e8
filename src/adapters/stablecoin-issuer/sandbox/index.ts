import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../../platform/db.js';
import { IssuerError, type IssuerAccount, type IssuerOperationRequest, type IssuerOperationResult, type ResolvedToken, type StablecoinIssuer } from '../port.js';

/**
 * Deterministic sandbox issuer (a simulated BRALE; README "Sandbox"). Its records live in Postgres
 * (sandbox_issuer_operations, sandbox_issuer_clients) so every process sees one provider and a
 * retried create returns the first operation. Magic values:
 *   apiClientSecret starting `invalid`     credentials refused (STABLECOIN_PROVIDER_ACCOUNT_INVALID)
 *   apiClientSecret starting `revoked`     access revoked (STABLECOIN_PROVIDER_ACCOUNT_REVOKED)
 *   apiClientId ending `-multi`            the credentials reach two accounts (`<id>-a`, `<id>-b`):
 *                                          linking must name providerAccountId
 *   providerTokenIdentifier `UNKNOWN…`     no such token; `REVIEW…` registered as PENDING_REVIEW
 *   fiat amount (cents) ending 902         the provider refuses the operation at once (FAILED, PROVIDER_REJECTED)
 *   fiat amount ending 903                 the provider is unavailable (503, nothing created)
 *   fiat amount ending 904                 fails after funding (FAILED, PROVIDER_TRANSFER_FAILED)
 * WIRE-funded mints and EXTERNAL_ACCOUNT burns wait (AWAITING_FUNDS) until
 * POST /sandbox/stablecoin-operations/{id}/fund; other sources count as funded at creation. From
 * funding, an operation is PENDING for `stepMs`, PROCESSING for another `stepMs`, then final.
 */
export type IssuerScenario = 'OK' | 'REJECTED' | 'UNAVAILABLE' | 'FAILS_AFTER_FUNDING';

export function issuerScenarioFor(fiatAmount: bigint): IssuerScenario {
  const tail = fiatAmount % 1000n;
  if (tail === 902n) return 'REJECTED';
  if (tail === 903n) return 'UNAVAILABLE';
  if (tail === 904n) return 'FAILS_AFTER_FUNDING';
  return 'OK';
}

export interface SandboxIssuerOptions {
  db: PrismaClient;
  now: () => number;
  /** How long each provider step (PENDING, then PROCESSING) lasts after funding. */
  stepMs: number;
}

const digest = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);
/** The one account a sandbox API client reaches (two for `-multi` clients). */
export const sandboxAccountsOf = (apiClientId: string) => (apiClientId.endsWith('-multi') ? [`${apiClientId}-a`, `${apiClientId}-b`] : [`sbx_${digest(apiClientId, 20)}`]);

function fundingInstructionsOf(req: IssuerOperationRequest, reference: string): Record<string, unknown> | undefined {
  if (req.operationType === 'MINT' && req.funding?.rail === 'WIRE') {
    // A US account number that passes the spec's rules (4–17 digits) and a valid ABA routing number.
    return { rail: 'WIRE', bankName: 'Sandbox Issuer Trust Bank', accountHolderName: 'Sandbox Issuer Trust FBO Brale', accountNumber: `77${BigInt(`0x${digest(reference, 12)}`) % 10_000_000_000n}`.padEnd(12, '0'), routingNumber: '021000021', reference: reference.slice(-16).toUpperCase(), amount: req.fiatAmount.toString(), currency: req.baseCurrency, valueType: req.providerTokenIdentifier };
  }
  if (req.operationType === 'BURN' && req.burnSource === 'EXTERNAL_ACCOUNT') {
    return { rail: 'SPARK', network: 'SPARK', address: `spark1sbx${digest(reference, 50)}`, valueType: req.providerTokenIdentifier };
  }
  return undefined;
}

const needsFunding = (req: IssuerOperationRequest) => (req.operationType === 'MINT' ? req.funding?.rail === 'WIRE' : req.burnSource === 'EXTERNAL_ACCOUNT');

export function createSandboxIssuer(opts: SandboxIssuerOptions): StablecoinIssuer {
  const resultOf = (row: { reference: string; scenario: string; fundedAt: Date | null }, instructions?: Record<string, unknown>): IssuerOperationResult => {
    const base = { reference: row.reference, ...(instructions ? { fundingInstructions: instructions } : {}) };
    if (row.scenario === 'REJECTED') return { ...base, status: 'FAILED', providerStatus: 'rejected', failureReason: 'PROVIDER_REJECTED' };
    if (!row.fundedAt) return { ...base, status: 'AWAITING_FUNDS', providerStatus: 'awaiting_funds' };
    const elapsed = opts.now() - row.fundedAt.getTime();
    if (elapsed < opts.stepMs) return { ...base, status: 'PENDING', providerStatus: 'pending' };
    if (elapsed < 2 * opts.stepMs) return { ...base, status: 'PROCESSING', providerStatus: 'processing' };
    if (row.scenario === 'FAILS_AFTER_FUNDING') return { ...base, status: 'FAILED', providerStatus: 'failed', failureReason: 'PROVIDER_TRANSFER_FAILED' };
    return { ...base, status: 'COMPLETED', providerStatus: 'complete' };
  };

  async function clientStatus(apiClientId: string, secret: string): Promise<'VALID' | 'INVALID' | 'REVOKED'> {
    if (secret.startsWith('invalid') || secret.length < 8) return 'INVALID';
    if (secret.startsWith('revoked')) return 'REVOKED';
    const c = await opts.db.sandboxIssuerClient.findUnique({ where: { apiClientId } });
    return (c?.status as 'INVALID' | 'REVOKED' | undefined) ?? 'VALID';
  }

  async function authorize(account: IssuerAccount): Promise<void> {
    const status = await clientStatus(account.apiClientId, account.apiClientSecret);
    if (status !== 'VALID') throw new IssuerError(`sandbox issuer: credentials ${status.toLowerCase()}`, false, status === 'INVALID' ? 'CREDENTIALS_INVALID' : 'CREDENTIALS_REVOKED');
    if (!sandboxAccountsOf(account.apiClientId).includes(account.providerAccountId)) throw new IssuerError('sandbox issuer: the credentials do not reach this account', false, 'CREDENTIALS_INVALID');
  }

  return {
    id: 'sandbox',
    provider: 'BRALE',

    async verifyCredentials(creds) {
      const status = await clientStatus(creds.apiClientId, creds.apiClientSecret);
      return status === 'VALID' ? { status, accounts: sandboxAccountsOf(creds.apiClientId) } : { status };
    },

    async resolveToken(account, token): Promise<ResolvedToken | undefined> {
      await authorize(account);
      const symbol = token.providerTokenIdentifier.toUpperCase();
      if (symbol.startsWith('UNKNOWN')) return undefined;
      return {
        name: `${symbol} Sandbox Dollar`,
        symbol,
        baseCurrency: 'USD',
        decimals: 6,
        networkTokenIdentifier: token.networkTokenIdentifier,
        issuanceStatus: symbol.startsWith('REVIEW') ? 'PENDING_REVIEW' : 'PROVISIONED',
      };
    },

    async createOperation(account, req) {
      await authorize(account);
      const scenario = issuerScenarioFor(req.fiatAmount);
      if (scenario === 'UNAVAILABLE') throw new IssuerError('sandbox issuer: temporarily unavailable (amount …903)', true);
      const reference = `sbxop_${digest(req.idempotencyKey, 24)}`;
      const now = new Date(opts.now());
      await opts.db.$executeRaw`
        INSERT INTO sandbox_issuer_operations (reference, idempotency_key, operation_type, funding_rail, scenario, amount, funded_at, created_at)
        VALUES (${reference}, ${req.idempotencyKey}, ${req.operationType}, ${req.funding?.rail ?? req.payout?.rail ?? 'NONE'}, ${scenario}, ${req.fiatAmount}, ${needsFunding(req) ? null : now}, ${now})
        ON CONFLICT (idempotency_key) DO NOTHING`;
      const row = await opts.db.sandboxIssuerOperation.findUniqueOrThrow({ where: { idempotencyKey: req.idempotencyKey } });
      const instructions = fundingInstructionsOf(req, row.reference);
      return resultOf(row, instructions);
    },

    async getOperation(account, reference) {
      await authorize(account);
      const row = await opts.db.sandboxIssuerOperation.findUnique({ where: { reference } });
      if (!row) return { reference, status: 'PENDING', notFound: true };
      // Instructions are given once, at creation (the service keeps them with the operation).
      return resultOf(row);
    },

    async simulateFunding(reference) {
      const moved = await opts.db.sandboxIssuerOperation.updateMany({ where: { reference, fundedAt: null }, data: { fundedAt: new Date(opts.now()) } });
      return moved.count === 1;
    },

    async simulateCredentialStatus(apiClientId, status) {
      await opts.db.sandboxIssuerClient.upsert({ where: { apiClientId }, create: { apiClientId, status }, update: { status } });
    },
  };
}
