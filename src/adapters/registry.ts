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

/** What building one configuration's adapters shares: the problems found, what was built, each spec built once. */
interface BuildState {
  rt: AdapterRuntime;
  problems: string[];
  built: Built[];
  cache: Map<string, Promise<Built | undefined>>;
  /** The rail router, once built: a rail's report is accepted only for a rail it serves. */
  routerRef: { current?: RailRouter };
}

/** The context handed to an adapter's create(): the common part, and the report callbacks of its kind. */
function contextFor(st: BuildState, kind: AdapterKind, id: string, self: () => unknown): AdapterContext {
  const { rt } = st;
  const { config } = rt;
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
  return KIND_CONTEXTS[kind]?.(base, rt, id, self, st.routerRef) ?? base;
}

type KindContext = (base: AdapterContext, rt: AdapterRuntime, id: string, self: () => unknown, routerRef: { current?: RailRouter }) => AdapterContext;

const notWired = (what: string) => () => Promise.reject(new Error(`${what} is not wired in this process`));

/** Per kind, the callbacks its adapters report through (rt.sinks). */
const KIND_CONTEXTS: Partial<Record<AdapterKind, KindContext>> = {
  rail: (base, rt, id, self, routerRef): RailAdapterContext => ({
    ...base,
    reportPayoutStatus: async (report: PayoutReport) => {
      const result = normalizePayoutResult(report, id, base.logger);
      const key = typeof report.idempotencyKey === 'string' ? report.idempotencyKey : undefined;
      return rt.sinks.reportPayout({ ...result, ...(key ? { idempotencyKey: key } : {}) }, (rail) => routerRef.current?.forRail(rail) === self());
    },
  }),
  kyc: (base, rt): KycAdapterContext => ({ ...base, reportCaseUpdated: (caseId: string) => rt.sinks.kycCaseUpdated(caseId) }),
  liveness: (base, rt): LivenessAdapterContext => ({ ...base, reportLivenessOutcome: (r) => rt.sinks.livenessOutcome(r.token, r.outcome) }),
  'stablecoin-issuer': (base, rt, _id, self): StablecoinIssuerContext => ({
    ...base,
    reportOperationUpdated: (reference: string) => rt.sinks.issuerOperationUpdated(String((self() as StablecoinIssuer | undefined)?.provider ?? ''), reference),
  }),
  'beneficiary-check': (base, rt): BeneficiaryCheckAdapterContext => ({ ...base, reportCheckUpdated: (reference: string) => rt.sinks.beneficiaryCheckUpdated(reference) }),
  'card-issuer': (base, rt, id): CardIssuerAdapterContext => {
    const missing = notWired('card issuing');
    return {
      ...base,
      authorize: (req) => (rt.sinks.cardAuthorization ? rt.sinks.cardAuthorization(id, req) : missing()),
      reportCardEvent: (event) => (rt.sinks.cardEvent ? rt.sinks.cardEvent(id, event) : missing()),
      reportProvisioned: (result) => (rt.sinks.cardProvisioned ? rt.sinks.cardProvisioned(id, normalizeProvisionResult(result, id, base.logger)) : missing()),
    };
  },
  collection: (base, rt, id): CollectionAdapterContext => ({ ...base, reportCredit: (credit) => (rt.sinks.collectionCredit ? rt.sinks.collectionCredit(id, credit) : notWired('collection')()) }),
};

/** The adapter's id and its create() for a spec: a built-in by name, or a module by path. */
async function creatorOf(rt: AdapterRuntime, kind: AdapterKind, spec: string, parsed: ReturnType<typeof parseSpec>): Promise<{ id: string; create: (settings: Record<string, string>, context: AdapterContext) => unknown }> {
  if (parsed.type !== 'builtin') {
    const mod = await loadAdapterModule(parsed.path, kind, rt.cwd);
    return { id: mod.id, create: mod.create };
  }
  const factory = BUILT_INS[kind][parsed.name];
  if (!factory) throw new Error(specProblem(kind, spec) ?? `unknown ${kind} adapter "${parsed.name}"`);
  // Card issuers' built-ins go by `card-<name>`: their webhook path and settings must not meet the rail's `http`.
  const id = kind === 'card-issuer' ? `card-${parsed.name}` : kind === 'collection' ? `collection-${parsed.name}` : parsed.name;
  return { id, create: (s, c) => factory(s, c, rt) };
}

/** Every adapter's calls bounded by PROVIDER_TIMEOUT_MS (the kinds with their own guard use it). */
function guarded(kind: AdapterKind, instance: unknown, timeoutMs: number, logger: AdapterContext['logger']): unknown {
  if (kind === 'rail') return guardRail(instance as RailAdapter, timeoutMs, logger);
  if (kind === 'stablecoin-issuer') return guardIssuer(instance as StablecoinIssuer, timeoutMs, logger);
  if (kind === 'card-issuer') return guardCardIssuer(instance as CardIssuerAdapter, timeoutMs, logger);
  if (kind === 'collection') return guardCollection(instance as CollectionAdapter, timeoutMs, logger);
  return guardCalls(kind, instance as object, timeoutMs);
}

/** Builds (once per kind and spec) the adapter `spec` names; a problem is recorded against `where`, and undefined returned. */
function buildOne(st: BuildState, kind: AdapterKind, spec: string, where: string): Promise<Built | undefined> {
  const parsed = parseSpec(spec);
  const key = `${kind}|${parsed.type === 'module' ? path.resolve(st.rt.cwd ?? process.cwd(), parsed.path) : parsed.name}`;
  let pending = st.cache.get(key);
  if (!pending) {
    pending = createOne(st, kind, spec, parsed).catch((err: Error) => {
      const message = err.message.replace(/^Invalid configuration:\s*/, '').replace(/\n\s*/g, '; ');
      st.problems.push(`  ${where} = ${spec}: ${message}`);
      return undefined;
    });
    st.cache.set(key, pending);
  }
  return pending;
}

async function createOne(st: BuildState, kind: AdapterKind, spec: string, parsed: ReturnType<typeof parseSpec>): Promise<Built> {
  const { config } = st.rt;
  let guardedRef: unknown;
  const { id, create } = await creatorOf(st.rt, kind, spec, parsed);
  const context = contextFor(st, kind, id, () => guardedRef);
  const instance = await create(adapterSettings(config.adapterEnv, adapterEnvName(id)), context);
  // `none` built-ins stand for "no provider" and build nothing.
  if (instance === undefined && parsed.type === 'builtin') return { kind, id, instance: undefined };
  checkShape(kind, instance, id);
  guardedRef = guarded(kind, instance, config.PROVIDER_TIMEOUT_MS, context.logger);
  const b: Built = { kind, id, instance: guardedRef };
  st.built.push(b);
  return b;
}

/** RAIL_ADAPTERS: the fallback and the adapter of each named rail (one that does not serve its rail is a problem). */
async function buildRails(st: BuildState): Promise<{ fallback: Built | undefined; byRail: Record<string, RailAdapter> }> {
  const { selection } = parseRailAdapters(st.rt.config.RAIL_ADAPTERS);
  const fallback = await buildOne(st, 'rail', selection.fallback, 'RAIL_ADAPTERS *');
  const byRail: Record<string, RailAdapter> = {};
  for (const [rail, spec] of Object.entries(selection.byRail)) {
    const adapter = (await buildOne(st, 'rail', spec, `RAIL_ADAPTERS ${rail}`))?.instance as RailAdapter | undefined;
    if (!adapter) continue;
    if (adapter.rails && !adapter.rails.includes(rail)) st.problems.push(`  RAIL_ADAPTERS ${rail} = ${spec}: the adapter serves only ${adapter.rails.join(', ')}`);
    else byRail[rail] = adapter;
  }
  return { fallback, byRail };
}

/** The single-adapter kinds, each from its setting (some default to the sandbox built-in in the sandbox, else none). */
const SINGLE_KINDS = {
  kyc: ['kyc', 'KYC_PROVIDER', undefined],
  fx: ['fx', 'FX_PROVIDER', undefined],
  notifier: ['notifier', 'NOTIFIER', undefined],
  liveness: ['liveness', 'LIVENESS_PROVIDER', 'sandbox'],
  storage: ['storage', 'DOCUMENT_STORAGE', undefined],
  beneficiaryCheck: ['beneficiary-check', 'BENEFICIARY_CHECK_PROVIDER', 'sandbox'],
  bankLink: ['bank-link', 'BANK_LINK_PROVIDER', 'sandbox'],
  stablecoinIssuer: ['stablecoin-issuer', 'STABLECOIN_ISSUER_PROVIDER', 'sandbox'],
  uma: ['uma', 'UMA_PROVIDER', undefined],
  deposits: ['deposits', 'DEPOSIT_DETECTOR', undefined],
  cardIssuer: ['card-issuer', 'CARD_ISSUER', 'sandbox'],
  collection: ['collection', 'COLLECTION_PROVIDER', 'sandbox'],
} as const satisfies Record<string, readonly [AdapterKind, keyof AppConfig, 'sandbox' | undefined]>;
type SingleKind = keyof typeof SINGLE_KINDS;

async function buildSingles(st: BuildState): Promise<Record<SingleKind, Built | undefined>> {
  const sandbox = st.rt.config.SVC_ENV === 'sandbox';
  const out = {} as Record<SingleKind, Built | undefined>;
  for (const [name, [kind, setting, sandboxDefault]] of Object.entries(SINGLE_KINDS) as Array<[SingleKind, (typeof SINGLE_KINDS)[SingleKind]]>) {
    const configured = st.rt.config[setting] as string | undefined;
    const spec = sandboxDefault ? (configured ?? (sandbox ? sandboxDefault : 'none')) : configured!;
    out[name] = await buildOne(st, kind, spec, setting);
  }
  return out;
}

/** The adapters taking webhooks, by id (two sharing one is a problem). */
function webhookHandlers(st: BuildState): Map<string, (request: InboundWebhook) => Promise<InboundWebhookAnswer>> {
  const webhooks = new Map<string, (request: InboundWebhook) => Promise<InboundWebhookAnswer>>();
  for (const b of st.built) {
    const handler = (b.instance as { handleWebhook?: (r: InboundWebhook) => Promise<InboundWebhookAnswer> }).handleWebhook;
    if (!handler) continue;
    if (webhooks.has(b.id)) st.problems.push(`  adapters: two adapters taking webhooks share the id "${b.id}"`);
    else webhooks.set(b.id, handler);
  }
  return webhooks;
}

/** Which rail adapter pays out on a rail: its own, else the fallback. */
function railRouter(fallbackRail: RailAdapter, byRail: Record<string, RailAdapter>): RailRouter {
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
  return router;
}

/** The ids in force, per kind (the boot log and GET /health's adapters). */
function adapterSummary(router: RailRouter, byRail: Record<string, RailAdapter>, singles: Record<SingleKind, Built | undefined>): Record<string, string> {
  const optional = new Set<SingleKind>(['cardIssuer', 'collection']);
  return {
    'rail:*': router.forRail(null).id,
    ...Object.fromEntries(Object.entries(byRail).map(([r, a]) => [`rail:${r}`, a.id])),
    ...Object.fromEntries((Object.keys(SINGLE_KINDS) as SingleKind[]).map((name) => [SINGLE_KINDS[name][0], optional.has(name) && !singles[name]!.instance ? 'none' : singles[name]!.id])),
  };
}

/** Builds every adapter of the configuration; throws ConfigError naming each problem. */
export async function buildAdapters(rt: AdapterRuntime): Promise<Adapters> {
  const st: BuildState = { rt, problems: [], built: [], cache: new Map(), routerRef: {} };
  const { fallback, byRail } = await buildRails(st);
  const singles = await buildSingles(st);
  const webhooks = webhookHandlers(st);
  if (st.problems.length) {
    await Promise.all(st.built.map((b) => (b.instance as { close?: () => Promise<void> }).close?.().catch(() => undefined)));
    throw new ConfigError(`Invalid adapter configuration (docs/adapters.md):\n${st.problems.join('\n')}`);
  }
  const router = railRouter(fallback!.instance as RailAdapter, byRail);
  st.routerRef.current = router;
  if (rt.config.SVC_ENV !== 'sandbox' && router.list().some((e) => e.adapter.id === 'sandbox')) {
    rt.logger.warn({ rails: rt.config.RAIL_ADAPTERS || '*:sandbox' }, 'production uses the sandbox rail for some rails: payouts there move no real money (set RAIL_ADAPTERS)');
  }
  const instance = <T>(name: SingleKind) => singles[name]!.instance as T;
  return {
    rails: router,
    kyc: instance<KycProvider>('kyc'),
    fx: instance<FxRateProvider>('fx'),
    notifier: instance<Notifier>('notifier'),
    liveness: instance<LivenessAdapter | undefined>('liveness'),
    storage: instance<DocumentStorage>('storage'),
    beneficiaryCheck: instance<BeneficiaryCheckAdapter>('beneficiaryCheck'),
    bankLink: instance<BankLinkAdapter | undefined>('bankLink'),
    stablecoinIssuer: instance<StablecoinIssuer | undefined>('stablecoinIssuer'),
    uma: instance<UmaCounterpartyAdapter>('uma'),
    deposits: instance<DepositDetector>('deposits'),
    cardIssuer: instance<CardIssuerAdapter | undefined>('cardIssuer'),
    collection: instance<CollectionAdapter | undefined>('collection'),
    webhookHandler: (id) => webhooks.get(id),
    summary: adapterSummary(router, byRail, singles),
    async close() {
      await Promise.all(st.built.map((b) => (b.instance as { close?: () => Promise<void> }).close?.().catch((err: unknown) => rt.logger.warn({ err, adapter: b.id }, 'adapter close failed'))));
    },
  };
}
