import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { adapterEnvName, type AdapterKind } from '../../src/adapters/common.js';
import { loadAdapterModule } from '../../src/adapters/registry.js';
import { adapterSettings } from '../../src/adapters/selection.js';
import type { RailAdapter } from '../../src/adapters/rails/port.js';
import { contractContext } from './context.js';
import { describeRailContract } from './rail.contract.js';
import { describeFxContract } from './fx.contract.js';
import { describeKycContract } from './kyc.contract.js';
import { describeNotifierContract } from './notifier.contract.js';
import { describeLivenessContract } from './liveness.contract.js';
import { describeStorageContract } from './storage.contract.js';
import { describeBankLinkContract } from './bank-link.contract.js';
import { describeBeneficiaryCheckContract } from './beneficiary-check.contract.js';
import { describeIssuerContract } from './stablecoin-issuer.contract.js';
import { collectionContext, describeCollectionContract } from './collection.contract.js';
import type { CollectionAdapter } from '../../src/adapters/collection/port.js';
import { harnessFor } from './stablecoin-issuer.harness.js';
import { describeUmaContract } from './uma.contract.js';
import { describeDepositsContract } from './deposits.contract.js';

/**
 * Registers the contract suite of `kind` for an adapter module, built exactly as the service builds
 * it: `create(settings, context)` with settings from `ADAPTER_<ID>_*` (over the module's own
 * `contract.config` test defaults). The module may export `contract` with fixtures:
 * rail: `{ rail, currency, completes, fails, amount, settleWithinMs, payoutCount(key) }`;
 * fx: `{ pair }`; notifier: `{ email, phone }`; beneficiary-check: `{ request }`; uma: `{ receiver, unknown,
 * currency, amount }`; deposits: `{ currencies }`.
 */
export async function describeModuleContract(kind: AdapterKind, modulePath: string): Promise<void> {
  const mod = await loadAdapterModule(modulePath, kind);
  const exported = (await import(pathToFileURL(mod.file).href)) as { contract?: Record<string, unknown> };
  const fixtures = (exported.contract ?? {}) as Record<string, any>;
  const settings = { ...((fixtures.config as Record<string, string> | undefined) ?? {}), ...adapterSettings(process.env, adapterEnvName(mod.id)) };
  const name = `${mod.id} (${path.relative(process.cwd(), mod.file)})`;
  const build = async () => {
    const context = contractContext(kind, mod.id);
    return { context, adapter: (await mod.create(settings, context)) as any };
  };
  switch (kind) {
    case 'rail':
      return describeRailContract(name, async () => {
        const { context, adapter } = await build();
        return {
          adapter: adapter as RailAdapter,
          context,
          rail: fixtures.rail ?? (adapter as RailAdapter).rails?.[0] ?? 'ACH',
          currency: fixtures.currency ?? 'USD',
          completes: fixtures.completes ?? { accountType: 'USD_ACCOUNT', accountInfo: { accountNumber: '123456789', routingNumber: '021000021' }, identifierLast3: '789' },
          ...(fixtures.fails ? { fails: fixtures.fails } : {}),
          ...(fixtures.amount !== undefined ? { amount: BigInt(fixtures.amount) } : {}),
          ...(fixtures.settleWithinMs ? { settleWithinMs: fixtures.settleWithinMs } : {}),
          ...(typeof fixtures.payoutCount === 'function' ? { payoutCount: fixtures.payoutCount } : {}),
        };
      });
    case 'fx':
      return describeFxContract(name, async () => ({ adapter: (await build()).adapter, ...(fixtures.pair ? { pair: fixtures.pair } : {}) }));
    case 'kyc':
      return describeKycContract(name, async () => ({ adapter: (await build()).adapter }));
    case 'notifier':
      return describeNotifierContract(name, async () => ({ adapter: (await build()).adapter, email: fixtures.email, phone: fixtures.phone }));
    case 'liveness':
      return describeLivenessContract(name, async () => ({ adapter: (await build()).adapter }));
    case 'storage':
      return describeStorageContract(name, async () => ({ adapter: (await build()).adapter }));
    case 'beneficiary-check':
      return describeBeneficiaryCheckContract(name, async () => ({ adapter: (await build()).adapter, ...(fixtures.request ? { request: fixtures.request } : {}) }));
    case 'bank-link':
      // The module's fixtures say how a link completes (its provider's sandbox credentials).
      if (typeof fixtures.completeLink !== 'function') throw new Error('a bank-link module exports contract.completeLink(linkToken) for its contract test');
      return describeBankLinkContract(name, async () => ({ adapter: (await build()).adapter, completeLink: fixtures.completeLink }));
    case 'stablecoin-issuer':
      // Fixtures over the sandbox's: `account`, `refused`, `token`, `unknownToken`, `wallet`, `bank`, and `fund(reference)` if the provider has a way to simulate funds arriving.
      return describeIssuerContract(name, async () => {
        const context = { ...contractContext(kind, mod.id), reportOperationUpdated: async () => 'ACCEPTED' as const };
        return harnessFor((await mod.create(settings, context)) as any, fixtures);
      });
    case 'uma':
      // The module's fixtures name a receiver it knows (and its currency, an amount within its limits) and one it does not.
      if (typeof fixtures.receiver !== 'string' || typeof fixtures.unknown !== 'string') throw new Error('a uma module exports contract { receiver, unknown, currency?, amount? } for its contract test');
      return describeUmaContract(name, async () => ({ adapter: (await build()).adapter, receiver: fixtures.receiver, unknown: fixtures.unknown, currency: fixtures.currency ?? 'USD', amount: BigInt(fixtures.amount ?? 1000) }));
    case 'deposits':
      return describeDepositsContract(name, async () => ({ adapter: (await build()).adapter, ...(fixtures.currencies ? { currencies: fixtures.currencies } : {}) }));
    case 'collection':
      // Issue 26 (26a): the module's fixtures say how its provider receives and pushes a credit (each gets the built adapter).
      if (typeof fixtures.deliver !== 'function' || typeof fixtures.push !== 'function' || typeof fixtures.pushForged !== 'function') throw new Error('a collection module exports contract { currency?, unservedRail?, deliver(credit, adapter), push(message, adapter), pushForged(message, adapter) } for its contract test');
      return describeCollectionContract(name, async () => {
        const context = collectionContext(mod.id);
        const adapter = (await mod.create(settings, context)) as CollectionAdapter;
        return { adapter, reported: context.reported, currency: fixtures.currency ?? 'USD', ...(fixtures.unservedRail ? { unservedRail: fixtures.unservedRail } : {}), deliver: (c) => fixtures.deliver(c, adapter), push: (m) => fixtures.push(m, adapter), pushForged: (m) => fixtures.pushForged(m, adapter) };
      });
  }
}
