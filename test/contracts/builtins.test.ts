import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import pino from 'pino';
import { createRedis } from '../../src/platform/redis.js';
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

/**
 * Every built-in adapter against its kind's contract (the http bridge: test/adapters/http-bridge.test.ts;
 * the example third-party adapter: module.test.ts). S3 storage needs an S3 endpoint and is covered by
 * test/customers/storage.test.ts against a signature-checking stub.
 */
const usd = (accountNumber: string) => ({ accountType: 'USD_ACCOUNT', accountInfo: { accountNumber, routingNumber: '021000021' }, identifierLast3: accountNumber.slice(-3) });

describeRailContract('sandbox', async () => {
  const redis = createRedis(inject('redisUrl'));
  const prefix = `t_contract_${process.pid}_${Date.now()}`;
  const adapter = createSandboxRail({ redis, prefix, now: () => Date.now(), delayScale: 0.01, slowMs: 1000, returnAfterMs: 60_000 });
  return {
    adapter,
    rail: 'RTP',
    currency: 'USD',
    completes: usd('123456789'),
    fails: usd('123456004'),
    payoutCount: async (key) => ((await redis.exists(`${prefix}:sandbox-rail:sbx_${key.replace(/^Transaction:/, '')}`)) ? 1 : 0),
    async close() {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
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
