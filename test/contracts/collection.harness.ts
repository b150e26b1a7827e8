import { inject } from 'vitest';
import { createPrisma } from '../../src/platform/db.js';
import { createSandboxCollection, SANDBOX_COLLECTION_SIGNATURE, signSandboxCollection } from '../../src/adapters/collection/sandbox/index.js';
import { withDatabase } from '../helpers/global-setup.js';
import { collectionContext, type CollectionContractHarness } from './collection.contract.js';
import { cloneDatabase, dropDatabase } from '../helpers/test-databases.js';

/** The sandbox collection bank keeps its credits in Postgres: a database of this harness's own, cloned from the template. */
export async function sandboxCollectionHarness(): Promise<CollectionContractHarness & { adapter: ReturnType<typeof createSandboxCollection> }> {
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_coll${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  // On the Citus rehearsal (TEST_CITUS_WORKERS) a clone on every node (29f).
  await cloneDatabase(inject('databaseUrl'), dbName, inject('templateDb'));
  const db = createPrisma(withDatabase(inject('databaseUrl'), dbName), 2);
  const context = collectionContext('collection-sandbox');
  const adapter = createSandboxCollection({ SECRET: 'contract-secret' }, context, db);
  const body = (m: object) => JSON.stringify(m);
  return {
    adapter,
    reported: context.reported,
    currency: 'USD',
    unservedRail: 'SPEI',
    deliver: async (c) => void (await adapter.simulateCredit(c, { push: false })),
    push: (m) => adapter.handleWebhook!({ headers: { [SANDBOX_COLLECTION_SIGNATURE]: signSandboxCollection('contract-secret', body(m)) }, rawBody: Buffer.from(body(m)) }),
    pushForged: (m) => adapter.handleWebhook!({ headers: { [SANDBOX_COLLECTION_SIGNATURE]: signSandboxCollection('another-secret', body(m)) }, rawBody: Buffer.from(body(m)) }),
    async close() {
      await db.$disconnect();
      await dropDatabase(inject('databaseUrl'), dbName);
    },
  };
}
