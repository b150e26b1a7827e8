import { LRUCache } from 'lru-cache';
import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import { platformOfLookup } from '../../platform/tenant-lookups.js';
import type { Card, CardTransaction } from '../../generated/prisma/client.js';
import type { AuthorizationDecision, AuthorizationRequest, CardEvent, CardEventReceipt } from '../../adapters/card-issuer/port.js';
import { isRawUniqueViolation, poolOf } from '../../platform/db.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { cardAuthorizationRate } from './card-fx.js';
import { EMBEDDED_WALLET, signCardAuthorization } from '../wallet/index.js'; // anchor 28b
import { decideAuthorization, isCredit, merchantMagic, toFunding, type DeclineReason } from './card-transactions.model.js';
import {
  claimCardEvent, lockCardTransaction, writeAdvice, writeAuthorization, writeClearing, writeCredit, writePullConfirmed,
  writeRelease, writeReturn, writeReturnReversal, type AuthorizationWrite, type DecidedAuthorization, type NewCardTransaction,
} from './card-money.writer.js';
import { readAuthorizationFacts, readDecidedAuthorization, type AuthorizationFacts } from './card-authorization.repo.js';
import { readPerPlatformGroup } from '../../platform/platform-groups.js';

/**
 * The inbound side of the issuer port (issue 27): the synchronous authorization decision and the
 * asynchronous events, each routed to its one writer (card-money.writer.ts). Reached through the
 * issuer adapter's verified webhook (src/adapter-sinks.ts), never from a platform's request.
 */

async function cardOf(deps: AppDeps, adapterId: string, processorRef: string): Promise<Card | null> {
  const platformId = await platformOfLookup(deps.prisma, 'CARD_PROCESSOR_REF', adapterId, processorRef);
  return platformId ? deps.prisma.card.findFirst({ where: { platformId, issuerAdapter: adapterId, processorRef } }) : null;
}

const answer = (t: DecidedAuthorization): AuthorizationDecision =>
  t.status === 'DECLINED'
    ? { approved: false, cardTransactionId: t.id, reason: t.declineReason ?? 'DECLINED' }
    : { approved: true, cardTransactionId: t.id, heldAmount: t.heldAmount, currency: t.fundingCurrency };

/** The locked rate: 1 in one currency, else the FX port's, kept per process for a bounded age (card-fx.ts). */
const lockedRate = (ctx: Ctx, transactionCurrency: string, fundingCurrency: string): Promise<string | null> => cardAuthorizationRate(ctx, transactionCurrency, fundingCurrency);

/**
 * Per process, per Prisma client: the facts of recently authorized cards by processor reference, so a
 * decision costs one round trip (the writing statement). Bounded (CARD_AUTHORIZATION_CACHE_SIZE, least
 * recently used out). No invalidation is needed for correctness: the statement re-checks the fingerprint and
 * answers STALE when anything changed (a freeze, a new funding source, KYC, a cap), and the entry is read
 * again.
 */
const factsCaches = new WeakMap<AppDeps['prisma'], LRUCache<string, AuthorizationFacts>>();
/** A card changing between read and write more often than this in a row is an operator's problem: no answer. */
const STALE_ATTEMPTS = 3;

function factsCacheOf(deps: AppDeps): LRUCache<string, AuthorizationFacts> {
  let cache = factsCaches.get(deps.prisma);
  if (!cache) factsCaches.set(deps.prisma, (cache = new LRUCache({ max: deps.config.CARD_AUTHORIZATION_CACHE_SIZE })));
  return cache;
}

/**
 * The decision the network waits for: one statement to Postgres when the card's facts are cached (two on
 * a miss), no Redis, no queue, no Prisma. Idempotent on the processor's token: a retried request gets the
 * first answer and never holds twice. Balance inquiries decide and move nothing.
 */
export async function authorizeCard(deps: AppDeps, adapterId: string, req: AuthorizationRequest): Promise<AuthorizationDecision> {
  // A code no one pays in (ISO's XTS, a typo) has no rate and no row could show it: declined, nothing written.
  if (!isKnownCurrency(req.currency)) return { approved: false, cardTransactionId: null, reason: 'CURRENCY_NOT_SUPPORTED' };
  const cache = factsCacheOf(deps);
  const key = `${adapterId}\u0000${req.processorRef}`;
  const pool = poolOf(deps.prisma);
  for (let attempt = 0; attempt < STALE_ATTEMPTS; attempt++) {
    // A balance inquiry is no hot path: its facts are always read fresh.
    const cached = req.kind === 'BALANCE_INQUIRY' ? undefined : cache.get(key);
    const facts = cached ?? (await readAuthorizationFacts(pool, adapterId, req.processorRef));
    if (!facts) return { approved: false, cardTransactionId: null, reason: 'CARD_NOT_ACTIVE' };
    if (!cached) cache.set(key, facts);
    const ctx = ctxFor(deps, facts.platformId);
    const n = await decide(ctx, facts, req);
    if (req.kind === 'BALANCE_INQUIRY') return balanceInquiry(ctx, { id: facts.cardId, currency: facts.currency }, req, n.decline);
    const w = await writeDecision(ctx, n, facts.fingerprint);
    if (w.outcome === 'DECIDED') return answer(w.decided);
    cache.delete(key);
  }
  throw new Error(`card ${req.processorRef}: its facts changed ${STALE_ATTEMPTS} times while deciding`);
}

/** The decision on the card's facts (card-transactions.model.ts decideAuthorization): the row to write. */
async function decide(ctx: Ctx, f: AuthorizationFacts, req: AuthorizationRequest): Promise<NewCardTransaction> {
  // The hold is in the funding source's currency (the card's, by the spec's rules; the source's if they ever differ).
  const fundingCurrency = f.accountCurrency ?? f.currency;
  const rate = await lockedRate(ctx, req.currency, fundingCurrency);
  const magic = merchantMagic(req.merchant.descriptor, ctx.config.SVC_ENV === 'sandbox');
  const decline: DeclineReason | null = rate === null ? 'CURRENCY_NOT_SUPPORTED' : decideAuthorization({
    cardState: f.state, cardholderStatus: f.customerStatus ?? 'UNKNOWN',
    account: f.accountStatus ? { status: f.accountStatus } : null,
    fundingAmount: toFunding(req.amount, rate), maxSpendPerTransaction: f.maxSpendPerTransaction,
    platformMaxAmount: f.platformMaxAmount, magic, credit: isCredit(req.kind),
  });
  // Issue 28 (anchor 28b): money leaves an embedded wallet only signed — here by the card's delegated key, the customer absent.
  const fundingAmount = rate === null ? 0n : toFunding(req.amount, rate);
  const unsigned = !decline && req.kind !== 'BALANCE_INQUIRY' && !isCredit(req.kind) && f.accountType === EMBEDDED_WALLET && f.accountId !== null
    && !(await signCardAuthorization(ctx, { cardId: f.cardId, accountId: f.accountId, issuerTransactionToken: req.issuerTransactionToken, amount: fundingAmount, currency: fundingCurrency }));
  return {
    id: newId('CardTransaction'), cardId: f.cardId, customerId: f.customerId, platformCustomerId: f.platformCustomerId ?? '',
    accountId: f.accountId ?? '', issuerTransactionToken: req.issuerTransactionToken, kind: req.kind, merchant: req.merchant, currency: req.currency,
    fundingCurrency, exchangeRate: rate ?? '1', amount: req.amount, magic, decline: unsigned ? 'FUNDING_SOURCE_UNAVAILABLE' : decline,
  };
}


/** Writes the decision; a concurrent duplicate of the token loses on its unique index and answers the winner's decision. */
async function writeDecision(ctx: Ctx, n: NewCardTransaction, fingerprint: string): Promise<AuthorizationWrite> {
  try {
    return await writeAuthorization(ctx, n, fingerprint);
  } catch (err) {
    const winner = isRawUniqueViolation(err) ? await readDecidedAuthorization(poolOf(ctx.prisma), ctx.platformId, n.issuerTransactionToken) : undefined;
    if (winner) return { outcome: 'DECIDED', decided: winner, written: false };
    throw err;
  }
}

async function balanceInquiry(ctx: Ctx, card: Pick<Card, 'id' | 'currency'>, req: AuthorizationRequest, decline: DeclineReason | null): Promise<AuthorizationDecision> {
  await ctx.db.$transaction((tx) => claimCardEvent(ctx, tx, { eventToken: req.issuerTransactionToken, cardId: card.id, cardTransactionId: null, type: 'BALANCE_INQUIRY', amount: 0n, outcome: decline ? 'DECLINED' : 'APPROVED', reason: decline }));
  return decline ? { approved: false, cardTransactionId: null, reason: decline } : { approved: true, cardTransactionId: null, heldAmount: 0n, currency: card.currency };
}

const OPEN = ['AUTHORIZED', 'PARTIALLY_SETTLED'];
const RETURNABLE = ['PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED'];

/**
 * One processor event, applied once: the row locked, the token claimed, the one writer called. An event
 * about an authorization not known yet is RETRY_LATER (the processor re-sends it; nothing is recorded);
 * an event the transaction's state refuses is recorded REFUSED with its reason and moves nothing.
 */
export async function applyCardEvent(deps: AppDeps, adapterId: string, e: CardEvent): Promise<CardEventReceipt> {
  const card = await cardOf(deps, adapterId, e.processorRef);
  if (!card) return 'UNKNOWN_CARD';
  const ctx = ctxFor(deps, card.platformId);
  if (e.type === 'CREDIT_AUTHORIZATION_ADVICE') return creditAdvice(ctx, card, e);
  return ctx.db.$transaction(async (tx) => {
    const row = await lockCardTransaction(tx, ctx.platformId, e.issuerTransactionToken);
    if (!row) return 'RETRY_LATER';
    // A reversal takes back the latest return not reversed yet (returns are reversed newest first).
    const amount = e.type === 'RETURN_REVERSAL' ? await unreversedReturn(tx, row.id) : (e.amount ?? 0n);
    const refusal = refusalOf(row, { ...e, amount });
    // Not applicable yet (a return before its clearing): the processor re-sends it; nothing is recorded.
    if (refusal === RETRY) return 'RETRY_LATER';
    if (!(await claimCardEvent(ctx, tx, { eventToken: e.eventToken, cardId: card.id, cardTransactionId: row.id, type: e.type, amount, outcome: refusal ? 'REFUSED' : 'APPLIED', reason: refusal }))) return 'DUPLICATE';
    if (refusal) return 'REFUSED';
    const available = async () => (await tx.internalAccount.findFirstOrThrow({ where: { id: row.accountId }, select: { availableBalance: true } })).availableBalance;
    switch (e.type) {
      case 'AUTHORIZATION_ADVICE': await writeAdvice(ctx, tx, row, e.eventToken, amount, await available()); break;
      case 'CLEARING':
        if (amount === 0n) await writeRelease(ctx, tx, row, e.eventToken);
        else await writeClearing(ctx, tx, row, e.eventToken, amount, await available());
        break;
      case 'AUTHORIZATION_EXPIRY': await writeRelease(ctx, tx, row, e.eventToken); break;
      case 'RETURN': await writeReturn(ctx, tx, row, e.eventToken, amount); break;
      case 'RETURN_REVERSAL': await writeReturnReversal(ctx, tx, row, e.eventToken, amount, await available()); break;
    }
    return 'APPLIED';
  });
}

async function unreversedReturn(tx: Parameters<Parameters<Ctx['db']['$transaction']>[0]>[0], cardTransactionId: string): Promise<bigint> {
  const applied = await tx.cardEvent.findMany({ where: { cardTransactionId, outcome: 'APPLIED', type: { in: ['RETURN', 'RETURN_REVERSAL'] } }, orderBy: { createdAt: 'asc' }, select: { type: true, amount: true } });
  const open: bigint[] = [];
  for (const a of applied) {
    if (a.type === 'RETURN') open.push(a.amount ?? 0n);
    else open.pop();
  }
  return open.at(-1) ?? 0n;
}

const RETRY = 'RETRY';

/**
 * Why the transaction as it is refuses the event (null: it applies). RETRY: it may apply once an
 * earlier event arrives (processors deliver out of order); anything else is final and recorded.
 */
function refusalOf(row: CardTransaction, e: CardEvent): string | null {
  const amount = e.amount ?? 0n;
  const unsettled = row.status === 'AUTHORIZED' || (row.status === 'PARTIALLY_SETTLED' && amount > row.settledAmount - row.refundedAmount);
  if ((e.type === 'RETURN' || e.type === 'RETURN_REVERSAL') && row.direction === 'DEBIT' && (unsettled || (e.type === 'RETURN_REVERSAL' && amount === 0n && row.refundedAmount === 0n))) return RETRY;
  switch (e.type) {
    case 'AUTHORIZATION_ADVICE':
      return OPEN.includes(row.status) && row.direction === 'DEBIT' && amount > 0n ? null : `An advice needs an open debit authorization (status ${row.status}).`;
    case 'CLEARING':
      return OPEN.includes(row.status) ? null : `A clearing needs an AUTHORIZED or PARTIALLY_SETTLED transaction (status ${row.status}).`;
    case 'AUTHORIZATION_EXPIRY':
      return OPEN.includes(row.status) ? null : `Nothing to expire (status ${row.status}).`;
    case 'RETURN':
      if (!RETURNABLE.includes(row.status) || row.direction !== 'DEBIT') return `A return needs a settled debit (status ${row.status}).`;
      return amount > 0n && amount <= row.settledAmount - row.refundedAmount ? null : `A return may not exceed the settled amount not yet refunded (${row.settledAmount - row.refundedAmount}).`;
    case 'RETURN_REVERSAL':
      return amount > 0n && row.refundedAmount >= amount && RETURNABLE.includes(row.status) ? null : 'No return to reverse.';
    default:
      return 'Unknown event.';
  }
}

/** A credit the network approved on its own (advice): an AUTHORIZED CREDIT transaction, once per token. */
async function creditAdvice(ctx: Ctx, card: Card, e: CardEvent): Promise<CardEventReceipt> {
  if (!e.amount || !e.currency || !e.merchant) return 'REFUSED';
  const seen = await ctx.db.cardTransaction.findFirst({ where: { issuerTransactionToken: e.issuerTransactionToken } });
  if (seen) return 'DUPLICATE';
  const customer = await ctx.db.customer.findFirst({ where: { id: card.customerId }, select: { platformCustomerId: true } });
  const rate = await lockedRate(ctx, e.currency, card.currency);
  if (rate === null) return 'REFUSED';
  const n: NewCardTransaction = {
    id: newId('CardTransaction'), cardId: card.id, customerId: card.customerId, platformCustomerId: customer?.platformCustomerId ?? '',
    accountId: card.fundingSources[0]!, issuerTransactionToken: e.issuerTransactionToken, kind: 'CREDIT_AUTHORIZATION', merchant: e.merchant,
    currency: e.currency, fundingCurrency: card.currency, exchangeRate: rate, amount: e.amount, magic: 'NONE', decline: null,
  };
  try {
    // The processor's token is the credit's key (unique): a repeat finds it, or loses on it, and writes nothing.
    const w = await writeCredit(ctx, n);
    if (w.outcome === 'DECIDED' && !w.written) return 'DUPLICATE';
    await ctx.db.$transaction((tx) => claimCardEvent(ctx, tx, { eventToken: e.eventToken, cardId: card.id, cardTransactionId: n.id, type: e.type, amount: e.amount, outcome: 'APPLIED' }));
  } catch (err) {
    if (await ctx.db.cardTransaction.findFirst({ where: { issuerTransactionToken: e.issuerTransactionToken } })) return 'DUPLICATE';
    throw err;
  }
  return 'APPLIED';
}

/**
 * The card sweep's money part: authorizations never cleared past their expiry release their hold; pulls
 * whose confirmation is due are confirmed. Bounded per pass; each row in its own transaction, under lock,
 * re-checked (a clearing may have won the race).
 */
export async function sweepCardTransactions(deps: AppDeps, batch: number): Promise<number> {
  const now = deps.clock.now();
  // Issue 29 (29a): per platform group, each read on one shard.
  const due = await readPerPlatformGroup(deps.prisma, 'card_transactions', (platforms) => deps.prisma.cardTransaction.findMany({
    where: { platformId: { in: platforms }, OR: [{ heldAmount: { gt: 0n }, expiresAt: { lte: now } }, { pullPendingCount: { gt: 0 }, pullFails: false, pullConfirmAt: { lte: now } }] },
    select: { id: true, platformId: true, issuerTransactionToken: true },
    take: batch,
  }));
  for (const d of due) {
    const ctx = ctxFor(deps, d.platformId);
    await ctx.db.$transaction(async (tx) => {
      const row = await lockCardTransaction(tx, ctx.platformId, d.issuerTransactionToken);
      if (!row) return;
      if (row.pullPendingCount > 0 && !row.pullFails && row.pullConfirmAt && row.pullConfirmAt <= now) await writePullConfirmed(ctx, tx, row);
      const fresh = await tx.cardTransaction.findFirstOrThrow({ where: { id: row.id } });
      if (fresh.heldAmount > 0n && fresh.expiresAt && fresh.expiresAt <= now && OPEN.includes(fresh.status)) await writeRelease(ctx, tx, fresh, `expiry:${now.getTime()}`);
    });
  }
  return due.length;
}

