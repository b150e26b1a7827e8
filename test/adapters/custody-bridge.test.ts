import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { createPrisma } from '../../src/platform/db.js';
import { createHttpCustody } from '../../src/adapters/custody/http/index.js';
import { createSandboxCustody } from '../../src/adapters/custody/sandbox/index.js';
import { sealingKeyOf } from '../../src/adapters/custody/sealing.js';
import { withDatabase } from '../helpers/global-setup.js';
import { CustodyBridgeServer } from '../helpers/custody-bridge-server.js';
import { testSigner } from '../contracts/context.js';
import { describeCustodyContract } from '../contracts/custody.contract.js';
import { cloneDatabase, dropDatabase } from '../helpers/test-databases.js';

/**
 * The http custody bridge (issue 28, anchor 28b) against the wallet-custody contract: the adapter talks to a
 * loopback bridge (test/helpers/custody-bridge-server.ts) that signs its answers and runs each call against
 * the sandbox provider, so every wire conversion (bigints, buffers, dates, errors) is exercised end to end.
 */
describeCustodyContract('http (loopback custody bridge)', async () => {
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_cbr${process.pid}`;
  // On the Citus rehearsal (TEST_CITUS_WORKERS) a clone on every node (29f).
  await cloneDatabase(inject('databaseUrl'), dbName, inject('templateDb'));
  const db = createPrisma(withDatabase(inject('databaseUrl'), dbName), 2);
  const backend = createSandboxCustody({ prisma: db, sealingKey: sealingKeyOf(undefined, true), now: () => new Date() });
  const signer = testSigner();
  const bridge = await new CustodyBridgeServer(backend, signer.publicKeyPem).start();
  return {
    adapter: createHttpCustody({ URL: bridge.url, PUBLIC_KEY: bridge.publicKeyPem, TIMEOUT_MS: '5000' }, signer),
    platformId: randomUUID(), // the platform's key, a uuid (30e)
    credit: (r) => backend.simulateCredit!(r),
    async close() {
      await bridge.stop();
      await db.$disconnect();
      await dropDatabase(inject('databaseUrl'), dbName);
    },
  };
});
