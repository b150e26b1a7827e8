import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { PrismaClient } from '../platform/db.js';
import { ConfigError, type AppConfig } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Signer } from '../platform/signing.js';
import { adapterEnvName, type AdapterContext, type AdapterKind, type AdapterModule, type InboundWebhook, type InboundWebhookAnswer } from './common.js';
import { adapterSettings, parseRailAdapters, parseSpec, specProblem } from './selection.js';
import { guardCalls, guardRail, normalizePayoutResult } from './guard.js';
import type { PayoutReport, PayoutReportReceipt, RailAdapter, RailAdapterContext } from './rails/port.js';
import type { KycAdapterContext, KycProvider } from './kyc/port.js';
import type { FxRateProvider } from './fx/port.js';
import type { Notifier } from './notifier/port.js';
import type { LivenessAdapter, LivenessAdapterContext, LivenessOutcome } from './liveness/port.js';
import type { DocumentStorage } from './storage/port.js';
import type { BeneficiaryCheckAdapter, BeneficiaryCheckAdapterContext } from './beneficiary-check/port.js';
import { createSandboxRail } from './rails/sandbox/index.js';
import { createHttpRail } from './rails/http/index.js';
import { sandboxKycProvider } from './kyc/sandbox/index.js';
import { sandboxFxProvider } from './fx/sandbox/index.js';
import { sandboxNotifier } from './notifier/sandbox/index.js';
import { sandboxLiveness } from './liveness/sandbox/index.js';
import { localStorage } from './storage/local/index.js';
import { documentStorageFor } from './storage/index.js';
import { sandboxBeneficiaryCheck } from './beneficiary-check/sandbox/index.js';
import { noBeneficiaryCheck } from './beneficiary-check/index.js';
import type { Adapters, RailRouter } from './adapter-set.js';
export type { Adapters } from './adapter-set.js';
import type { BankLinkAdapter } from './bank-link/port.js';
import { createSandboxBankLink } from './bank-link/sandbox/index.js';
import { createPlaidBankLink } from './bank-link/plaid/index.js';
import type { IssuerReportReceipt, StablecoinIssuer, StablecoinIssuerContext } from './stablecoin-issuer/port.js';
import { createSandboxIssuer } from './stablecoin-issuer/sandbox/index.js';
import { createHttpIssuer } from './stablecoin-issuer/http/index.js';
import { guardIssuer } from './stablecoin-issuer/guard.js';
import type { UmaCounterpartyAdapter } from './uma/port.js';
import { createUmaCounterparty } from './uma/index.js';
import type { DepositDetector } from './deposits/port.js';
import { createSandboxDepositDetector } from './deposits/sandbox/index.js';
import type { AuthorizationDecision, AuthorizationRequest, CardEvent, CardEventReceipt, CardIssuerAdapter, CardIssuerAdapterContext, ProvisionResult } from './card-issuer/port.js';
import { createSandboxCardIssuer } from './card-issuer/sandbox/index.js';
import { createHttpCardIssuer } from './card-issuer/http/index.js';
import { guardCardIssuer, normalizeProvisionResult } from './card-issuer/guard.js';
import type { CollectionAdapter, CollectionAdapterContext, CollectionCredit, CreditReceipt } from './collection/port.js';
import { createSandboxCollection } from './collection/sandbox/index.js';
import { createHttpCollection } from './collection/http/index.js';
import { guardCollection } from './collection/guard.js';

/**
 * Builds every adapter a process uses, once, at start (createDeps): the configured built-in or the
 * operator's module for each kind and each rail, each validating its own settings. Any problem —
 * unknown name, missing module, bad export, refused settings — stops start-up with one message
 * listing them all (decision: never fail the first payment at 3 a.m.).
 */

/** Where asynchronous outcomes go: the domains' entry points, wired by src/adapter-sinks.ts. */
export interface AdapterSinks {
  /** `serves(rail)`: whether the reporting adapter is the one configured for that rail. */
  reportPayout(report: PayoutReport, serves: (rail: string | null) => boolean): Promise<PayoutReportReceipt>;
  kycCaseUpdated(caseId: string): Promise<'ACCEPTED' | 'UNKNOWN_CASE'>;
  livenessOutcome(token: string, outcome: LivenessOutcome): Promise<'ACCEPTED' | 'UNKNOWN_SESSION'>;
  beneficiaryCheckUpdated(reference: string): Promise<'ACCEPTED' | 'UNKNOWN_CHECK'>;
  /** issue 26: the stablecoin issuer says an operation changed (`reference`: the provider's id). */
  issuerOperationUpdated(provider: string, reference: string): Promise<IssuerReportReceipt>;
  /** Card issuer (issue 27): `adapterId` is the reporting issuer's; it answers only for its own cards. */
  cardAuthorization?(adapterId: string, req: AuthorizationRequest): Promise<AuthorizationDecision>;
  cardEvent?(adapterId: string, event: CardEvent): Promise<CardEventReceipt>;
  cardProvisioned?(adapterId: string, result: ProvisionResult): Promise<'ACCEPTED' | 'UNKNOWN_CARD'>;
  /** Collection (issue 26, 26a): a credit on pay-in coordinates, pushed or polled. */
  collectionCredit?(adapterId: string, credit: CollectionCredit): Promise<CreditReceipt>;
}

export interface AdapterRuntime {
  config: AppConfig;
  clock: Clock;
  logger: Logger;
  redis: Redis;
  /** The service's database (the sandbox rail's simulated bank keeps its records there). */
  prisma: PrismaClient;
  signer: Signer;
  sinks: AdapterSinks;
  /** Module paths resolve against this (default: process.cwd()). */
  cwd?: string;
}

type BuiltIn = (settings: Record<string, string>, context: AdapterContext, rt: AdapterRuntime) => unknown;

const sandboxOnly = (rt: AdapterRuntime, what: string) => {
  if (rt.config.SVC_ENV !== 'sandbox') throw new Error(`${what} exists only with SVC_ENV=sandbox (decision A2)`);
};

const BUILT_INS: Record<AdapterKind, Record<string, BuiltIn>> = {
  rail: {
    sandbox: (_s, _c, rt) =>
      createSandboxRail({
        db: rt.prisma,
        now: () => rt.clock.now().getTime(),
        delayScale: rt.config.SANDBOX_RAIL_DELAY_SCALE,
        slowMs: rt.config.SANDBOX_SLOW_MS,
        returnAfterMs: rt.config.SANDBOX_RETURN_AFTER_MS,
      }),
    http: (s, c) => createHttpRail(s, c as RailAdapterContext),
  },
  kyc: { sandbox: (_s, _c, rt) => sandboxKycProvider(rt.config.PUBLIC_BASE_URL, rt.config.API_BASE_PATH, rt.config.SVC_ENV === 'sandbox') },
  fx: { sandbox: (_s, _c, rt) => sandboxFxProvider({ spreadBps: rt.config.FX_SPREAD_BPS, clock: rt.clock }) },
  notifier: { sandbox: (_s, _c, rt) => sandboxNotifier(rt.logger) },
  liveness: {
    sandbox: (_s, _c, rt) => (sandboxOnly(rt, 'the sandbox liveness provider'), sandboxLiveness(rt.config.PUBLIC_BASE_URL, rt.config.API_BASE_PATH)),
    none: () => undefined,
  },
  storage: {
    local: (_s, _c, rt) => localStorage(rt.config.DOCUMENT_STORAGE_DIR),
    s3: (_s, _c, rt) => documentStorageFor({ ...rt.config, DOCUMENT_STORAGE: 's3' }),
  },
  'beneficiary-check': {
    sandbox: (_s, _c, rt) => (sandboxOnly(rt, 'the sandbox beneficiary check'), sandboxBeneficiaryCheck),
    none: () => noBeneficiaryCheck,
  },
  'bank-link': {
    sandbox: (_s, _c, rt) => (
      sandboxOnly(rt, 'the sandbox bank link'),
      createSandboxBankLink({ now: () => rt.clock.now(), linkPageUrl: (t) => `${rt.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}${rt.config.API_BASE_PATH}/sandbox/plaid/link/${encodeURIComponent(t)}` })
    ),
    plaid: (s, c) => createPlaidBankLink(s, c),
    none: () => undefined,
  },
  'stablecoin-issuer': {
    sandbox: (_s, _c, rt) => (
      sandboxOnly(rt, 'the sandbox stablecoin issuer'),
      createSandboxIssuer({ db: rt.prisma, now: () => rt.clock.now().getTime(), stepMs: Math.round(1000 * rt.config.SANDBOX_RAIL_DELAY_SCALE) })
    ),
    'http-issuer': (s, c) => createHttpIssuer(s, c as StablecoinIssuerContext),
    none: () => undefined,
  },
  uma: {
    sandbox: (_s, _c, rt) => createUmaCounterparty('sandbox', rt),
    'uma-protocol': (_s, _c, rt) => createUmaCounterparty('uma-protocol', rt),
  },
  deposits: { sandbox: () => createSandboxDepositDetector() },
  'card-issuer': {
    sandbox: (s, c, rt) => (sandboxOnly(rt, 'the sandbox card issuer'), createSandboxCardIssuer(s, c as CardIssuerAdapterContext, rt.config.SANDBOX_CARD_ACTIVATION_DELAY_MS)),
    http: (s, c) => createHttpCardIssuer(s, c as CardIssuerAdapterContext),
    none: () => undefined,
  },
  collection: {
    sandbox: (s, c, rt) => (sandboxOnly(rt, 'the sandbox collection bank'), createSandboxCollection(s, c as CollectionAdapterContext, rt.prisma)),
    http: (s, c) => createHttpCollection(s, c as CollectionAdapterContext),
    none: () => undefined,
  },
};

/** The methods an implementation of each kind must have. */
const REQUIRED: Record<AdapterKind, string[]> = {
  rail: ['submitPayout', 'getPayoutStatus', 'refundPayout'],
  kyc: ['createHostedLink', 'decide'],
  fx: ['getRate'],
  notifier: ['sendContactCode'],
  liveness: ['startSession'],
  storage: ['put', 'get', 'delete'],
  'beneficiary-check': ['check'],
  'bank-link': ['createLinkToken', 'exchangePublicToken'],
  'stablecoin-issuer': ['verifyCredentials', 'resolveToken', 'createOperation', 'getOperation'],
  uma: ['lookup', 'payRequest'],
  deposits: ['instructionsFor', 'matchKeyOf'],
  'card-issuer': ['provision', 'getProvisioning', 'setState', 'reveal', 'set3dsPassword'],
  collection: ['railsFor', 'openCoordinates', 'closeCoordinates', 'listCredits'],
};

export const builtInNames = (kind: AdapterKind): string[] => Object.keys(BUILT_INS[kind]);

/** The id a module goes by: its `id` export, else its file name (its folder's for index files). */
function moduleIdOf(mod: Partial<AdapterModule<unknown>>, absolute: string): string {
  if (typeof mod.id === 'string' && mod.id) return mod.id;
  const base = path.basename(absolute).replace(/\.(c|m)?[jt]s$/, '');
  return base === 'index' ? path.basename(path.dirname(absolute)) : base;
}

/** Imports an adapter module and checks its exports (also used by `npm run adapter:test`). */
export async function loadAdapterModule(spec: string, kind: AdapterKind, cwd = process.cwd()): Promise<{ id: string; create: AdapterModule<unknown>['create']; file: string }> {
  const file = path.resolve(cwd, spec);
  if (!existsSync(file)) throw new Error(`module not found: ${file} (paths are resolved against ${cwd})`);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`cannot load ${file}: ${(err as Error).message}`);
  }
  const mod = (typeof loaded.create === 'function' ? loaded : (loaded.default ?? {})) as Partial<AdapterModule<unknown>>;
  if (typeof mod.create !== 'function') throw new Error(`${file} exports no create(config, context) function`);
  if (mod.kind !== undefined && mod.kind !== kind) throw new Error(`${file} is a ${String(mod.kind)} adapter, configured as a ${kind} adapter`);
  return { id: moduleIdOf(mod, file), create: mod.create.bind(mod), file };
}

function checkShape(kind: AdapterKind, instance: unknown, expectedId: string): void {
  if (!instance || typeof instance !== 'object') throw new Error(`create() returned ${instance === undefined ? 'nothing' : typeof instance}, not an adapter`);
  const a = instance as Record<string, unknown>;
  if (typeof a.id !== 'string' || !a.id) throw new Error('the adapter has no id');
  if (a.id !== expectedId) throw new Error(`the adapter's id is "${a.id}" but it is configured as "${expectedId}" (export const id = '${a.id}' from the module)`);
  const missing = REQUIRED[kind].filter((m) => typeof a[m] !== 'function');
  if (missing.length) throw new Error(`a ${kind} adapter needs ${missing.join(', ')}()`);
  if (kind === 'stablecoin-issuer' && a.provider !== 'BRALE') throw new Error('a stablecoin-issuer adapter needs `provider: \'BRALE\'` (REF\'s StablecoinProvider values)');
  if (kind === 'kyc' && typeof a.provider !== 'string') throw new Error('a kyc adapter needs a `provider` string (the kyc-link response names it)');
  if (kind === 'rail' && a.rails !== undefined && !(Array.isArray(a.rails) && a.rails.every((r) => typeof r === 'string'))) throw new Error('`rails` must be an array of rail names');
  if (a.handleWebhook !== undefined && typeof a.handleWebhook !== 'function') throw new Error('`handleWebhook` must be a function');
}

interface Built {
  kind: AdapterKind;
  id: string;
  instance: unknown;
}

/** Builds every adapter of the configuration; throws ConfigError naming each problem. */
export async function buildAdapters(rt: AdapterRuntime): Promise<Adapters> {
  const { config } = rt;
  const problems: string[] = [];
  const built: Built[] = [];
  const cache = new Map<string, Promise<Built | undefined>>();

  function contextFor(kind: AdapterKind, id: string, self: () => unknown): AdapterContext {
    const base: AdapterContext = {
      adapterId: id,
      kind,
      environment: config.SVC_ENV,
      logger: rt.logger.child({ adapter: id, kind }),
      clock: rt.clock,
      signer: rt.signer,
      webhookUrl: `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}${config.API_BASE_PATH}/adapters/${encodeURIComponent(id)}/webhooks`,
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
    };
    switch (kind) {
      case 'rail': {
        const c: RailAdapterContext = {
          ...base,
          reportPayoutStatus: async (report: PayoutReport) => {
            const result = normalizePayoutResult(report, id, base.logger);
            const key = typeof report.idempotencyKey === 'string' ? report.idempotencyKey : undefined;
            return rt.sinks.reportPayout({ ...result, ...(key ? { idempotencyKey: key } : {}) }, (rail) => routerRef.current?.forRail(rail) === self());
          },
        };
        return c;
      }
      case 'kyc': {
        const c: KycAdapterContext = { ...base, reportCaseUpdated: (caseId: string) => rt.sinks.kycCaseUpdated(caseId) };
        return c;
      }
      case 'liveness': {
        const c: LivenessAdapterContext = { ...base, reportLivenessOutcome: (r) => rt.sinks.livenessOutcome(r.token, r.outcome) };
        return c;
      }
      case 'stablecoin-issuer': {
        const c: StablecoinIssuerContext = { ...base, reportOperationUpdated: (reference: string) => rt.sinks.issuerOperationUpdated(String((self() as StablecoinIssuer | undefined)?.provider ?? ''), reference) };
        return c;
      }
      case 'beneficiary-check': {
        const c: BeneficiaryCheckAdapterContext = { ...base, reportCheckUpdated: (reference: string) => rt.sinks.beneficiaryCheckUpdated(reference) };
        return c;
      }
      case 'card-issuer': {
        const missing = () => new Error('card issuing is not wired in this process');
        const c: CardIssuerAdapterContext = {
          ...base,
          authorize: (req) => (rt.sinks.cardAuthorization ? rt.sinks.cardAuthorization(id, req) : Promise.reject(missing())),
          reportCardEvent: (event) => (rt.sinks.cardEvent ? rt.sinks.cardEvent(id, event) : Promise.reject(missing())),
          reportProvisioned: (result) => (rt.sinks.cardProvisioned ? rt.sinks.cardProvisioned(id, normalizeProvisionResult(result, id, base.logger)) : Promise.reject(missing())),
        };
        return c;
      }
      case 'collection': {
        const c: CollectionAdapterContext = { ...base, reportCredit: (credit) => (rt.sinks.collectionCredit ? rt.sinks.collectionCredit(id, credit) : Promise.reject(new Error('collection is not wired in this process'))) };
        return c;
      }
      default:
        return base;
    }
  }

  async function buildOne(kind: AdapterKind, spec: string, where: string): Promise<Built | undefined> {
    const parsed = parseSpec(spec);
    const key = `${kind}|${parsed.type === 'module' ? path.resolve(rt.cwd ?? process.cwd(), parsed.path) : parsed.name}`;
    let pending = cache.get(key);
    if (!pending) {
      pending = (async () => {
        let guardedRef: unknown;
        try {
          let id: string;
          let create: (settings: Record<string, string>, context: AdapterContext) => unknown;
          if (parsed.type === 'builtin') {
            const factory = BUILT_INS[kind][parsed.name];
            if (!factory) throw new Error(specProblem(kind, spec) ?? `unknown ${kind} adapter "${parsed.name}"`);
            // Card issuers' built-ins go by `card-<name>`: their webhook path and settings must not meet the rail's `http`.
            id = kind === 'card-issuer' ? `card-${parsed.name}` : kind === 'collection' ? `collection-${parsed.name}` : parsed.name;
            create = (s, c) => factory(s, c, rt);
          } else {
            const mod = await loadAdapterModule(parsed.path, kind, rt.cwd);
            id = mod.id;
            create = mod.create;
          }
          const settings = adapterSettings(config.adapterEnv, adapterEnvName(id));
          const context = contextFor(kind, id, () => guardedRef);
          const instance = await create(settings, context);
          // `none` built-ins stand for "no provider" and build nothing.
          if (instance === undefined && parsed.type === 'builtin') return { kind, id, instance: undefined };
          checkShape(kind, instance, id);
          const guarded =
            kind === 'rail' ? guardRail(instance as RailAdapter, config.PROVIDER_TIMEOUT_MS, context.logger)
            : kind === 'stablecoin-issuer' ? guardIssuer(instance as StablecoinIssuer, config.PROVIDER_TIMEOUT_MS, context.logger)
            : kind === 'card-issuer' ? guardCardIssuer(instance as CardIssuerAdapter, config.PROVIDER_TIMEOUT_MS, context.logger)
            : kind === 'collection' ? guardCollection(instance as CollectionAdapter, config.PROVIDER_TIMEOUT_MS, context.logger)
            : guardCalls(kind, instance as object, config.PROVIDER_TIMEOUT_MS);
          guardedRef = guarded;
          const b: Built = { kind, id, instance: guarded };
          built.push(b);
          return b;
        } catch (err) {
          const message = (err as Error).message.replace(/^Invalid configuration:\s*/, '').replace(/\n\s*/g, '; ');
          problems.push(`  ${where} = ${spec}: ${message}`);
          return undefined;
        }
      })();
      cache.set(key, pending);
    }
    return pending;
  }

  const routerRef: { current?: RailRouter } = {};
  const { selection } = parseRailAdapters(config.RAIL_ADAPTERS);
  const fallback = await buildOne('rail', selection.fallback, 'RAIL_ADAPTERS *');
  const byRail: Record<string, RailAdapter> = {};
  for (const [rail, spec] of Object.entries(selection.byRail)) {
    const b = await buildOne('rail', spec, `RAIL_ADAPTERS ${rail}`);
    const adapter = b?.instance as RailAdapter | undefined;
    if (!adapter) continue;
    if (adapter.rails && !adapter.rails.includes(rail)) problems.push(`  RAIL_ADAPTERS ${rail} = ${spec}: the adapter serves only ${adapter.rails.join(', ')}`);
    else byRail[rail] = adapter;
  }
  const sandbox = config.SVC_ENV === 'sandbox';
  const kyc = await buildOne('kyc', config.KYC_PROVIDER, 'KYC_PROVIDER');
  const fx = await buildOne('fx', config.FX_PROVIDER, 'FX_PROVIDER');
  const notifier = await buildOne('notifier', config.NOTIFIER, 'NOTIFIER');
  const liveness = await buildOne('liveness', config.LIVENESS_PROVIDER ?? (sandbox ? 'sandbox' : 'none'), 'LIVENESS_PROVIDER');
  const storage = await buildOne('storage', config.DOCUMENT_STORAGE, 'DOCUMENT_STORAGE');
  const beneficiary = await buildOne('beneficiary-check', config.BENEFICIARY_CHECK_PROVIDER ?? (sandbox ? 'sandbox' : 'none'), 'BENEFICIARY_CHECK_PROVIDER');
  const bankLink = await buildOne('bank-link', config.BANK_LINK_PROVIDER ?? (sandbox ? 'sandbox' : 'none'), 'BANK_LINK_PROVIDER');
  const issuer = await buildOne('stablecoin-issuer', config.STABLECOIN_ISSUER_PROVIDER ?? (sandbox ? 'sandbox' : 'none'), 'STABLECOIN_ISSUER_PROVIDER');
  const uma = await buildOne('uma', config.UMA_PROVIDER, 'UMA_PROVIDER');
  const deposits = await buildOne('deposits', config.DEPOSIT_DETECTOR, 'DEPOSIT_DETECTOR');
  const cardIssuer = await buildOne('card-issuer', config.CARD_ISSUER ?? (sandbox ? 'sandbox' : 'none'), 'CARD_ISSUER');
  const collection = await buildOne('collection', config.COLLECTION_PROVIDER ?? (sandbox ? 'sandbox' : 'none'), 'COLLECTION_PROVIDER');

  const webhooks = new Map<string, (request: InboundWebhook) => Promise<InboundWebhookAnswer>>();
  for (const b of built) {
    const handler = (b.instance as { handleWebhook?: (r: InboundWebhook) => Promise<InboundWebhookAnswer> }).handleWebhook;
    if (!handler) continue;
    if (webhooks.has(b.id)) problems.push(`  adapters: two adapters taking webhooks share the id "${b.id}"`);
    else webhooks.set(b.id, handler);
  }

  if (problems.length) {
    await Promise.all(built.map((b) => (b.instance as { close?: () => Promise<void> }).close?.().catch(() => undefined)));
    throw new ConfigError(`Invalid adapter configuration (docs/adapters.md):\n${problems.join('\n')}`);
  }

  const fallbackRail = fallback!.instance as RailAdapter;
  const router: RailRouter = {
    forRail: (rail) => (rail && byRail[rail]) || fallbackRail,
    list() {
      const out = new Map<RailAdapter, { adapter: RailAdapter; rails: string[]; fallback: boolean }>();
      out.set(fallbackRail, { adapter: fallbackRail, rails: [], fallback: true });
      for (const [rail, a] of Object.entries(byRail)) {
        const e = out.get(a) ?? { adapter: a, rails: [], fallback: false };
        e.rails.push(rail);
        out.set(a, e);
      }
      return [...out.values()];
    },
    expectedSettlementMs(rail) {
      const e = router.forRail(rail).expectedSettlementMs;
      const ms = typeof e === 'number' ? e : rail ? e?.[rail] : undefined;
      return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : 0;
    },
  };
  routerRef.current = router;

  if (!sandbox && router.list().some((e) => e.adapter.id === 'sandbox')) {
    rt.logger.warn({ rails: config.RAIL_ADAPTERS || '*:sandbox' }, 'production uses the sandbox rail for some rails: payouts there move no real money (set RAIL_ADAPTERS)');
  }
  const summary: Record<string, string> = {
    'rail:*': fallbackRail.id,
    ...Object.fromEntries(Object.entries(byRail).map(([r, a]) => [`rail:${r}`, a.id])),
    kyc: kyc!.id,
    fx: fx!.id,
    notifier: notifier!.id,
    liveness: liveness!.id,
    storage: storage!.id,
    'beneficiary-check': beneficiary!.id,
    'bank-link': bankLink!.id,
    'stablecoin-issuer': issuer!.id,
    uma: uma!.id,
    deposits: deposits!.id,
    'card-issuer': cardIssuer!.instance ? cardIssuer!.id : 'none',
    collection: collection!.instance ? collection!.id : 'none',
  };
  const adapters: Adapters = {
    rails: router,
    kyc: kyc!.instance as KycProvider,
    fx: fx!.instance as FxRateProvider,
    notifier: notifier!.instance as Notifier,
    liveness: liveness!.instance as LivenessAdapter | undefined,
    storage: storage!.instance as DocumentStorage,
    beneficiaryCheck: beneficiary!.instance as BeneficiaryCheckAdapter,
    bankLink: bankLink!.instance as BankLinkAdapter | undefined,
    stablecoinIssuer: issuer!.instance as StablecoinIssuer | undefined,
    uma: uma!.instance as UmaCounterpartyAdapter,
    deposits: deposits!.instance as DepositDetector,
    cardIssuer: cardIssuer!.instance as CardIssuerAdapter | undefined,
    collection: collection!.instance as CollectionAdapter | undefined,
    webhookHandler: (id) => webhooks.get(id),
    summary,
    async close() {
      await Promise.all(built.map((b) => (b.instance as { close?: () => Promise<void> }).close?.().catch((err: unknown) => rt.logger.warn({ err, adapter: b.id }, 'adapter close failed'))));
    },
  };
  return adapters;
}
