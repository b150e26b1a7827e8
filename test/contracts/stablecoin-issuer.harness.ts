import { inject } from 'vitest';
import { createPrisma } from '../../src/platform/db.js';
import { withDatabase } from '../helpers/global-setup.js';
import { createSandboxIssuer, sandboxAccountsOf } from '../../src/adapters/stablecoin-issuer/sandbox/index.js';
import type { StablecoinIssuer } from '../../src/adapters/stablecoin-issuer/port.js';
import type { IssuerContractHarness } from './stablecoin-issuer.contract.js';
import { cloneDatabase, dropDatabase } from '../helpers/test-databases.js';

/**
 * The sandbox issuer over a database of its own (cloned from the template), with a clock the suite moves.
 * `stepMs`: how long a funded operation stays PENDING, then PROCESSING, in real time (plus `advance`); a test
 * that asserts one of those states between two calls sets it far above its own run time (a loaded machine
 * takes seconds between two requests).
 */
export async function sandboxIssuerHarness(stepMs = 1000): Promise<IssuerContractHarness> {
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_issuer${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  // On the Citus rehearsal (TEST_CITUS_WORKERS) a clone on every node (29f).
  await cloneDatabase(inject('databaseUrl'), dbName, inject('templateDb'));
  const db = createPrisma(withDatabase(inject('databaseUrl'), dbName), 2);
  let offsetMs = 0;
  const adapter: StablecoinIssuer = createSandboxIssuer({ db, now: () => Date.now() + offsetMs, stepMs });
  return harnessFor(adapter, {
    fund: async (ref) => void (await adapter.simulateFunding!(ref)),
    advance: (ms) => void (offsetMs += ms),
    async close() {
      await db.$disconnect();
      await dropDatabase(inject('databaseUrl'), dbName);
    },
  });
}

/** The fixtures every issuer harness shares (sandbox magic values: docs/adapters.md "Stablecoin issuer"). */
export function harnessFor(adapter: StablecoinIssuer, extra: Partial<IssuerContractHarness>): IssuerContractHarness {
  const apiClientId = 'contract-client';
  return {
    adapter,
    account: { apiClientId, apiClientSecret: 'sandbox-secret-1', environment: 'SANDBOX', providerAccountId: sandboxAccountsOf(apiClientId)[0]! },
    refused: { apiClientId, apiClientSecret: 'invalid-secret', environment: 'SANDBOX' },
    token: { providerTokenIdentifier: 'ACME', network: 'SPARK', networkTokenIdentifier: 'btkn1contracttoken0000' },
    unknownToken: { providerTokenIdentifier: 'UNKNOWNTOKEN', network: 'SPARK', networkTokenIdentifier: 'btkn1unknown000000' },
    wallet: 'spark1contractwallet',
    bank: { externalAccountId: 'ExternalAccount:contract', accountType: 'USD_ACCOUNT', accountInfo: { accountNumber: '123456789', routingNumber: '021000021' } },
    settleWithinMs: 10_000,
    ...extra,
  };
}
