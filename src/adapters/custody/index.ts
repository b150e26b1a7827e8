import type { AppDeps } from '../../deps.js';
import { adapterSettings } from '../selection.js';
import { createHttpCustody } from './http/index.js';
import type { WalletCustody } from './port.js';
import { createSandboxCustody } from './sandbox/index.js';
import { sealingKeyOf } from './sealing.js';

/**
 * The custody provider WALLET_CUSTODY names, built once per process (per Prisma client) on first use.
 * `sandbox`: keys sealed in Postgres (custodial); `http`: the operator's bridge to an enclave-backed
 * provider (docs/adapters.md "Wallet custody"). An unknown name stops start-up (config.ts enum).
 */
const built = new WeakMap<object, WalletCustody>();

export function custodyFor(deps: Pick<AppDeps, 'config' | 'prisma' | 'clock' | 'signer'>): WalletCustody {
  const hit = built.get(deps.prisma);
  if (hit) return hit;
  const c = deps.config;
  const custody = c.WALLET_CUSTODY === 'http'
    ? createHttpCustody(adapterSettings(c.adapterEnv, 'CUSTODY_HTTP'), deps.signer)
    : createSandboxCustody({ prisma: deps.prisma, sealingKey: sealingKeyOf(c.WALLET_SEALING_KEY ?? c.EXTERNAL_ACCOUNT_ENCRYPTION_KEY, c.SVC_ENV === 'sandbox'), now: () => deps.clock.now() });
  built.set(deps.prisma, custody);
  return custody;
}

export { type WalletCustody } from './port.js';
