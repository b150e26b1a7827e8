import type { AppDeps } from '../../deps.js';
import type { UmaCounterpartyAdapter } from './port.js';
import { createSandboxUmaDirectory } from './sandbox/index.js';
import type { UmaProtocolOptions } from './protocol/index.js';

const cache = new WeakMap<AppDeps['config'], UmaCounterpartyAdapter>();

/**
 * The adapter named by UMA_PROVIDER (loadConfig refuses unknown ids and a uma-protocol setup without
 * keys, so start-up fails on them). One per process configuration; adapters are stateless.
 */
export function umaCounterpartyFor(deps: AppDeps): UmaCounterpartyAdapter {
  let adapter = cache.get(deps.config);
  if (adapter) return adapter;
  const c = deps.config;
  adapter =
    c.UMA_PROVIDER === 'uma-protocol'
      ? lazyProtocolClient({
          vaspDomain: c.UMA_VASP_DOMAIN,
          signingPrivateKeyHex: c.UMA_SIGNING_PRIVATE_KEY!,
          domainOverrides: c.UMA_DOMAIN_OVERRIDES ?? {},
          timeoutMs: c.UMA_REQUEST_TIMEOUT_MS,
          redis: deps.redis,
          redisPrefix: c.REDIS_PREFIX,
          now: () => deps.clock.now(),
        })
      : createSandboxUmaDirectory({ domain: c.UMA_SANDBOX_DOMAIN, now: () => deps.clock.now(), termsTtlSeconds: c.UMA_LOOKUP_TTL_SECONDS });
  cache.set(deps.config, adapter);
  return adapter;
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
