import type { Ctx } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { recordEvent } from '../../platform/outbox.js';
import { assertFeeConfigSupported, feeConfigKey, isActiveFee } from '../fees/index.js';
import { assertWebhookUrl } from '../webhooks/index.js';
import type { EmbeddedWalletConfigInput, PatchConfigBody } from './config.schemas.js';
import type { TenantTx } from '../../platform/db.js';
import { mergeCardTokenization2faConfig } from './card-tokenization.js';
import { PROVIDER_REQUIRED_CUSTOMER_FIELDS } from './currency-config.js';
import { openInternalAccounts } from '../ledger/index.js';
import type { FeeConfig, Platform, PlatformCurrency } from '../../generated/prisma/client.js';
import { ProcessCache, type InvalidationBus } from '../../platform/process-cache.js';

export interface PlatformConfigView {
  platform: Platform;
  feeConfigs: FeeConfig[];
  currencies: PlatformCurrency[];
  /** REF's PlatformConfig.embeddedWalletConfig (issue 28); null while Global Accounts are off. */
  embeddedWalletConfig: Record<string, unknown> | null;
}

const CACHE = 'platform-settings';
const caches = new WeakMap<InvalidationBus, ProcessCache<PlatformConfigView>>();

/**
 * The platform's settings (the row, active fee configs, currencies and limits) as every payment reads
 * them: a copy kept in each process, dropped everywhere when PATCH /config (or another writer of the
 * platform row) commits. Returned objects are shared: never mutate them.
 */
export function getConfig(ctx: Ctx): Promise<PlatformConfigView> {
  let cache = caches.get(ctx.bus);
  if (!cache) caches.set(ctx.bus, (cache = new ProcessCache(CACHE, ctx.bus, ctx.config.PLATFORM_SETTINGS_MAX_AGE_MS)));
  return cache.get(ctx.platformId, () => loadConfig(ctx));
}

/** After a commit that changed the platform's row, fee configs or currencies. */
export async function invalidatePlatformSettings(ctx: Pick<Ctx, 'bus' | 'platformId'>): Promise<void> {
  caches.get(ctx.bus)?.forget(ctx.platformId);
  await ctx.bus.publish(CACHE, ctx.platformId);
}

async function loadConfig(ctx: Ctx): Promise<PlatformConfigView> {
  const [platform, feeConfigs, currencies, wallet] = await Promise.all([
    ctx.db.platform.findFirst({}),
    ctx.db.feeConfig.findMany({ where: { active: true }, orderBy: { configKey: 'asc' } }),
    ctx.db.platformCurrency.findMany({ orderBy: { currencyCode: 'asc' } }),
    ctx.db.embeddedWalletConfig.findUnique({ where: { platformId: ctx.platformId } }), // hook:28
  ]);
  if (!platform) throw new NotFoundError('NOT_FOUND', 'Platform not found.');
  return { platform, feeConfigs, currencies, embeddedWalletConfig: (wallet?.config as Record<string, unknown> | undefined) ?? null };
}

/**
 * PATCH /config. `feeConfigs` is a merge-by-key upsert (spec "Platform fees"): only the keys sent
 * change, one row per key, both components 0 deactivates. Every entry is validated before any is
 * written. Errors: 400 INVALID_INPUT, 501 NOT_IMPLEMENTED for unsupported fee currencies or rails.
 */
export async function patchConfig(ctx: Ctx, body: PatchConfigBody): Promise<PlatformConfigView> {
  const fees = body.feeConfigs ?? [];
  fees.forEach((c, i) => assertFeeConfigSupported(c, i));
  const keys = fees.map(feeConfigKey);
  const dup = keys.findIndex((k, i) => keys.indexOf(k) !== i);
  if (dup >= 0) throw new ValidationError([{ field: `feeConfigs[${dup}]`, message: 'Two entries share one fee key.' }]);
  const currencyCodes = (body.supportedCurrencies ?? []).map((c) => c.currencyCode);
  const dupCur = currencyCodes.findIndex((k, i) => currencyCodes.indexOf(k) !== i);
  if (dupCur >= 0) throw new ValidationError([{ field: `supportedCurrencies[${dupCur}].currencyCode`, message: 'Listed twice.' }]);
  if (body.webhookEndpoint) await assertWebhookUrl(body.webhookEndpoint, ctx.config.webhookAllowPrivateUrls);

  const now = ctx.clock.now();
  await ctx.db.$transaction(async (tx) => {
    const before = await tx.platform.findFirstOrThrow({});
    const platformPatch: Record<string, unknown> = {};
    if (body.webhookEndpoint !== undefined) platformPatch.webhookEndpoint = body.webhookEndpoint;
    if (body.umaDomain !== undefined) platformPatch.umaDomain = body.umaDomain;
    if (body.maxLiveCards !== undefined) platformPatch.maxLiveCards = body.maxLiveCards;
    if (body.oneCardPerCardholder !== undefined) platformPatch.oneCardPerCardholder = body.oneCardPerCardholder;
    if (body.endUserTermsRequired !== undefined) platformPatch.endUserTermsRequired = body.endUserTermsRequired; // hook:25a
    if (body.cardTokenization2faConfig !== undefined) platformPatch.cardTokenization2faConfig = mergeCardTokenization2faConfig(before.cardTokenization2faConfig, body.cardTokenization2faConfig); // issue 27
    if (body.beneficiaryRules !== undefined) platformPatch.beneficiaryRules = body.beneficiaryRules; // hook:25c
    if (body.incomingPaymentApproval !== undefined) platformPatch.incomingPaymentApproval = body.incomingPaymentApproval; // hook:25c
    if (Object.keys(platformPatch).length > 0) {
      await tx.platform.updateMany({ data: { ...platformPatch, updatedAt: now } });
    }
    for (const [i, c] of fees.entries()) {
      const row = {
        feeType: c.feeType,
        sourceCurrency: c.feeType === 'CROSS_CURRENCY_TRANSACTION' ? c.sourceCurrency : null,
        rail: c.feeType === 'RAIL' ? c.rail : null,
        direction: c.feeType === 'RAIL' ? c.direction : null,
        originator: c.feeType === 'RAIL' ? c.originator : null,
        variableFeeBps: c.variableFeeBps,
        fixedFeeAmount: BigInt(c.fixedFee.amount),
        fixedFeeCurrency: c.fixedFee.currency,
        active: isActiveFee(c),
        updatedAt: now,
      };
      await tx.feeConfig.upsert({
        where: { platformId_configKey: { platformId: ctx.platformId, configKey: keys[i]! } },
        create: { id: newId('FeeConfig'), configKey: keys[i]!, ...row } as any,
        update: row,
      });
    }
    for (const c of body.supportedCurrencies ?? []) {
      const row = {
        minAmount: BigInt(c.minAmount),
        maxAmount: BigInt(c.maxAmount),
        requiredCounterpartyFields: c.requiredCounterpartyFields,
        enabledTransactionTypes: c.enabledTransactionTypes,
        updatedAt: now,
      };
      await tx.platformCurrency.upsert({
        where: { platformId_currencyCode: { platformId: ctx.platformId, currencyCode: c.currencyCode } },
        create: { currencyCode: c.currencyCode, ...row } as any,
        update: row,
      });
    }
    await openInternalAccounts(tx, ctx.platformId, null, (body.supportedCurrencies ?? []).map((c) => c.currencyCode));
    if (body.embeddedWalletConfig !== undefined) await writeEmbeddedWalletConfig(ctx, tx, body.embeddedWalletConfig, now); // hook:28
    if (body.embeddedWalletConfig !== undefined || body.supportedCurrencies) await walletConfigHook?.(ctx, tx); // hook:28
    if (body.webhookEndpoint && body.webhookEndpoint !== before.webhookEndpoint) {
      // Decision §7.4: setting or changing the endpoint sends a TEST delivery.
      await recordEvent(tx, 'TEST', {});
    }
  });
  await invalidatePlatformSettings(ctx);
  return getConfig(ctx);
}

/** REF: the fields sent merge into the stored ones ("fields omitted are left unchanged"); null removes the config. */
async function writeEmbeddedWalletConfig(ctx: Ctx, tx: TenantTx, patch: EmbeddedWalletConfigInput | null, now: Date): Promise<void> {
  if (patch === null) {
    await tx.embeddedWalletConfig.deleteMany({});
    return;
  }
  const before = await tx.embeddedWalletConfig.findUnique({ where: { platformId: ctx.platformId } });
  const config = { ...((before?.config as object | undefined) ?? {}), ...patch };
  await tx.embeddedWalletConfig.upsert({ where: { platformId: ctx.platformId }, create: { config, updatedAt: now } as never, update: { config, updatedAt: now } });
}

/**
 * Issue 28: bound in src/modules.ts to the wallet domain (which sits above platforms). Runs in PATCH /config's
 * transaction after the wallet config or the currencies changed: records the EMBEDDED_WALLET accounts now owed
 * to existing customers, so the change and what it owes commit together.
 */
let walletConfigHook: ((ctx: Ctx, tx: TenantTx) => Promise<unknown>) | undefined;
export function bindWalletConfig(hook: (ctx: Ctx, tx: TenantTx) => Promise<unknown>): void {
  walletConfigHook = hook;
}

export function providerRequiredCustomerFields(currencyCode: string): string[] | undefined {
  return PROVIDER_REQUIRED_CUSTOMER_FIELDS[currencyCode];
}
