import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, inject, it } from 'vitest';
import pino from 'pino';
import { createPrisma } from '../../src/platform/db.js';
import { withDatabase } from '../helpers/global-setup.js';
import { systemClock } from '../../src/platform/clock.js';
import { createSandboxRail } from '../../src/adapters/rails/sandbox/index.js';
import { sandboxFxProvider } from '../../src/adapters/fx/sandbox/index.js';
import { sandboxKycProvider } from '../../src/adapters/kyc/sandbox/index.js';
import { sandboxNotifier } from '../../src/adapters/notifier/sandbox/index.js';
import { sandboxLiveness } from '../../src/adapters/liveness/sandbox/index.js';
import { localStorage } from '../../src/adapters/storage/local/index.js';
import { sandboxBeneficiaryCheck } from '../../src/adapters/beneficiary-check/sandbox/index.js';
import { noBeneficiaryCheck } from '../../src/adapters/beneficiary-check/index.js';
import { describeRailContract } from './rail.contract.js';
import { describeFxContract } from './fx.contract.js';
import { describeKycContract } from './kyc.contract.js';
import { describeNotifierContract } from './notifier.contract.js';
import { describeLivenessContract } from './liveness.contract.js';
import { describeStorageContract } from './storage.contract.js';
import { describeBeneficiaryCheckContract } from './beneficiary-check.contract.js';
import { describeBankLinkContract } from './bank-link.contract.js';
import { createSandboxBankLink, sandboxPublicToken } from '../../src/adapters/bank-link/sandbox/index.js';
import { describeIssuerContract } from './stablecoin-issuer.contract.js';
import { sandboxIssuerHarness } from './stablecoin-issuer.harness.js';
import { createSandboxUmaDirectory } from '../../src/adapters/uma/sandbox/index.js';
import { createSandboxDepositDetector } from '../../src/adapters/deposits/sandbox/index.js';
import { describeUmaContract } from './uma.contract.js';
import { describeDepositsContract } from './deposits.contract.js';
import { createSandboxCardIssuer, SANDBOX_PROCESSOR_SIGNATURE, signSandboxMessage } from '../../src/adapters/card-issuer/sandbox/index.js';
import { cardIssuerContext, describeCardIssuerContract } from './card-issuer.contract.js';
import { describeCustodyContract } from './custody.contract.js';
import { createSandboxCustody } from '../../src/adapters/custody/sandbox/index.js';
import { sealingKeyOf } from '../../src/adapters/custody/sealing.js';
import { describeCollectionContract } from './collection.contract.js';
import { sandboxCollectionHarness } from './collection.harness.js';
import { cloneDatabase, dropDatabase } from '../helpers/test-databases.js';

/**
 * Every built-in adapter against its kind's contract (the http bridge: test/adapters/http-bridge.test.ts;
 * the example third-party adapter: module.test.ts). S3 storage needs an S3 endpoint and is covered by
 * test/customers/storage.test.ts against a signature-checking stub.
 */
const usd = (accountNumber: string) => ({ accountType: 'USD_ACCOUNT', accountInfo: { accountNumber, routingNumber: '021000021' }, identifierLast3: accountNumber.slice(-3) });

describeRailContract('sandbox', async () => {
  // The simulated bank keeps its records in Postgres (issue 11): a database of this file's own, cloned from the template.
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_rail${process.pid}`;
  // On the Citus rehearsal (TEST_CITUS_WORKERS) a clone on every node (29f).
  await cloneDatabase(inject('databaseUrl'), dbName, inject('templateDb'));
  const db = createPrisma(withDatabase(inject('databaseUrl'), dbName), 2);
  const adapter = createSandboxRail({ db, now: () => Date.now(), delayScale: 0.01, slowMs: 1000, returnAfterMs: 60_000 });
  return {
    adapter,
    rail: 'RTP',
    currency: 'USD',
    completes: usd('123456789'),
    fails: usd('123456004'),
    payoutCount: async (key) => db.sandboxBankPayout.count({ where: { idempotencyKey: key } }),
    async close() {
      await db.$disconnect();
      await dropDatabase(inject('databaseUrl'), dbName);
    },
  };
});

describeFxContract('sandbox', async () => ({ adapter: sandboxFxProvider({ spreadBps: 50, clock: systemClock }) }));
describeKycContract('sandbox', async () => ({ adapter: sandboxKycProvider('http://localhost:3000', '/2025-10-13') }));
describeNotifierContract('sandbox', async () => ({ adapter: sandboxNotifier(pino({ level: 'silent' })) }));
describeLivenessContract('sandbox', async () => ({ adapter: sandboxLiveness('http://localhost:3000', '/2025-10-13') }));
describeStorageContract('local', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-storage-contract-'));
  return { adapter: localStorage(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});
describeBeneficiaryCheckContract('sandbox', async () => ({ adapter: sandboxBeneficiaryCheck }));
describeBeneficiaryCheckContract('none', async () => ({ adapter: noBeneficiaryCheck }));
describeBankLinkContract('sandbox', async () => ({
  adapter: createSandboxBankLink({ now: () => new Date(), linkPageUrl: (t) => `http://localhost:3000/2025-10-13/sandbox/plaid/link/${t}` }),
  completeLink: async (linkToken) => ({ publicToken: sandboxPublicToken(linkToken, 'sandbox-checking'), accountId: 'sandbox-checking' }),
}));

// issue 26: the sandbox stablecoin issuer (its simulated provider keeps records in Postgres, as the sandbox bank does).
describeIssuerContract('sandbox', sandboxIssuerHarness);
describeUmaContract('sandbox', async () => ({
  adapter: createSandboxUmaDirectory({ domain: 'sandbox.uma', now: () => new Date(), termsTtlSeconds: 600 }),
  receiver: '$alice@sandbox.uma',
  unknown: '$nobody@sandbox.uma',
  currency: 'USD',
  amount: 1000n,
}));
describeDepositsContract('sandbox', async () => ({ adapter: createSandboxDepositDetector() }));
// Issue 27: the sandbox card processor (its magic platformCardId suffixes; pushes signed with its HMAC secret).
describeCardIssuerContract('sandbox', async () => {
  const context = cardIssuerContext('card-sandbox');
  const adapter = createSandboxCardIssuer({ SECRET: 'contract-secret' }, context, 0);
  const body = (m: object) => JSON.stringify(m);
  return {
    adapter,
    recorded: context.recorded,
    activates: 'card-123',
    rejects: 'card-002',
    push: (m) => adapter.simulate(m),
    pushForged: (m) => adapter.handleWebhook!({ headers: { [SANDBOX_PROCESSOR_SIGNATURE]: signSandboxMessage('another-secret', body(m)) }, rawBody: Buffer.from(body(m)) }),
  };
});
// A card id that is no UUIDv7 carries no creation time: one whose first bits read as 1970 still expires ahead (it once
// gave an expiry 3 years after 1970, about once in 170 random ids).
it('the sandbox card processor dates a card whose id is no UUIDv7 from now', async () => {
  const adapter = createSandboxCardIssuer({}, cardIssuerContext('card-sandbox'), 0);
  for (const cardId of ['Card:00000000-0001-4000-8000-000000000000', 'Card:0000017f-0000-4abc-8000-000000000000', 'Card:not-a-uuid']) {
    const r = await adapter.provision({ cardId, platformCardId: 'card-123', cardholderId: 'Customer:x', form: 'VIRTUAL', currency: 'USD' });
    expect(r).toMatchObject({ status: 'ACTIVE', expYear: new Date().getUTCFullYear() + 3 });
  }
  const v7 = await adapter.provision({ cardId: 'Card:0180f3a0-0000-7000-8000-000000000000', platformCardId: 'card-123', cardholderId: 'Customer:x', form: 'VIRTUAL', currency: 'USD' });
  expect(v7).toMatchObject({ status: 'ACTIVE', expMonth: 5, expYear: 2025 }); // issued 2022-05-24
});
describeCustodyContract('sandbox', async () => {
  // The sandbox custody keeps its sealed keys in Postgres: a database of this file's own, cloned from the template.
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_cust${process.pid}`;
  // On the Citus rehearsal (TEST_CITUS_WORKERS) a clone on every node (29f).
  await cloneDatabase(inject('databaseUrl'), dbName, inject('templateDb'));
  const db = createPrisma(withDatabase(inject('databaseUrl'), dbName), 2);
  return {
    adapter: createSandboxCustody({ prisma: db, sealingKey: sealingKeyOf(undefined, true), now: () => new Date() }),
    platformId: randomUUID(), // the platform's key, a uuid (30e)
    async close() {
      await db.$disconnect();
      await dropDatabase(inject('databaseUrl'), dbName);
    },
  };
});
// Issue 26 (26a): the sandbox collection bank (its credits in Postgres; pushes signed with its HMAC secret).
describeCollectionContract('sandbox', sandboxCollectionHarness);
