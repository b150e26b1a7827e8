import type { Redis } from 'ioredis';
import type { AppConfig } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { UmaCounterpartyAdapter } from './port.js';
import { createSandboxUmaDirectory } from './sandbox/index.js';
import type { UmaProtocolOptions } from './protocol/index.js';

/**
 * The built-in UMA counterparties (src/adapters/registry.ts builds the one UMA_PROVIDER names, guarded by
 * the timeout wrapper; loadConfig refuses a uma-protocol setup without keys). Both read the UMA_*
 * settings rather than ADAPTER_<ID>_* ones: they predate the registry and keep their documented names.
 */
export function createUmaCounterparty(kind: 'sandbox' | 'uma-protocol', rt: { config: AppConfig; clock: Clock; redis: Redis }): UmaCounterpartyAdapter {
  const c = rt.config;
  const now = () => rt.clock.now();
  if (kind === 'sandbox') return createSandboxUmaDirectory({ domain: c.UMA_SANDBOX_DOMAIN, now, termsTtlSeconds: c.UMA_LOOKUP_TTL_SECONDS });
  if (!c.UMA_SIGNING_PRIVATE_KEY) throw new Error('UMA_SIGNING_PRIVATE_KEY and UMA_ENCRYPTION_PRIVATE_KEY are required with uma-protocol');
  return lazyProtocolClient({
    vaspDomain: c.UMA_VASP_DOMAIN,
    signingPrivateKeyHex: c.UMA_SIGNING_PRIVATE_KEY,
    domainOverrides: c.UMA_DOMAIN_OVERRIDES ?? {},
    timeoutMs: c.UMA_REQUEST_TIMEOUT_MS,
    redis: rt.redis,
    redisPrefix: c.REDIS_PREFIX,
    now,
  });
}

/** The protocol client loads the UMA SDK on first use: processes that never look up pay no start-up cost. */
function lazyProtocolClient(opts: UmaProtocolOptions): UmaCounterpartyAdapter {
  let client: Promise<UmaCounterpartyAdapter> | undefined;
  const get = () => (client ??= import('./protocol/index.js').then((m) => m.createUmaProtocolClient(opts)));
  return {
    id: 'uma-protocol',
    lookup: async (req, o) => (await get()).lookup(req, o),
    payRequest: async (req, o) => (await get()).payRequest(req, o),
  };
}
