import type { Ctx } from '../../deps.js';
import { BadRequestError, DomainError, NotImplementedError, ValidationError } from '../../platform/errors.js';
import { RailError } from '../../adapters/rails/port.js';
import { railFor } from '../../adapters/rails/registry.js';
import { getInternalAccount } from '../ledger/index.js';
import { getConfig } from '../platforms/index.js';
import { applicableFees, priceQuoteForWire, serviceFeeSchedule } from '../fees/index.js';
import { WITHDRAWAL_NETWORKS, type WithdrawalFeeEstimate } from './withdrawal-fee.model.js';

export interface EstimateWithdrawalFeeBody {
  internalAccountId: string;
  currency: string;
  cryptoNetwork: string;
  amount: number;
  destinationAddress: string;
}

/**
 * POST /crypto/estimate-withdrawal-fee (REF estimateCryptoWithdrawalFee). The network fee comes from the crypto rail
 * adapter's port (estimateNetworkFee; the sandbox rail's is a fixed table), the application fee from the platform's fee
 * configs and the service's schedule as a same-currency payout on that network would be charged (POST /quotes), and
 * `netAmount = amount − totalFee` with `totalFee` = the network fee in the withdrawal currency + the application fee.
 * Nothing is held or sent. Errors: 400 INVALID_INPUT (currency, network, address, account not a crypto account),
 * AMOUNT_OUT_OF_RANGE (the fees take the whole amount); 404 NOT_FOUND (the account, also another platform's);
 * 501 NOT_IMPLEMENTED (the rail adapter cannot estimate); 503 SERVICE_UNAVAILABLE (the adapter did not answer).
 */
export async function estimateWithdrawalFee(ctx: Ctx, body: EstimateWithdrawalFeeBody): Promise<WithdrawalFeeEstimate> {
  const account = await getInternalAccount(ctx, body.internalAccountId);
  const network = body.cryptoNetwork.toUpperCase();
  assertWithdrawable(account, body, network);
  const amount = BigInt(body.amount);
  const rail = railFor(ctx, network);
  if (!rail.estimateNetworkFee) throw new NotImplementedError(`The ${rail.id} rail adapter serving ${network} gives no network fee estimate.`);
  const network$ = await rail.estimateNetworkFee({ network, currency: body.currency, amount, destinationAddress: body.destinationAddress }).catch((err) => {
    // The rail did not answer (or not usably): the estimate is unavailable for a moment, the request was not wrong.
    if (err instanceof RailError) throw new DomainError(503, 'SERVICE_UNAVAILABLE', 'The network fee estimate is unavailable; retry shortly.', { retryAfterSeconds: 1 }, { 'retry-after': '1' });
    throw err;
  });
  const { feeConfigs } = await getConfig(ctx);
  const fees = applicableFees({ configs: feeConfigs, sendingCurrency: body.currency, receivingCurrency: body.currency, rail: network, service: serviceFeeSchedule(ctx.config) });
  const pricing = priceQuoteForWire({ lockedSide: 'SENDING', lockedAmount: amount, sendingCurrency: body.currency, receivingCurrency: body.currency, rate: '1', platformFee: fees.platformFee, serviceFee: fees.serviceFee });
  const totalFee = pricing.feesIncluded + network$.networkFeeInCurrency;
  if (totalFee >= amount) {
    throw new BadRequestError('AMOUNT_OUT_OF_RANGE', `The fees (${totalFee} ${body.currency}) take the whole amount.`, { minAmount: Number(totalFee + 1n), currency: body.currency });
  }
  return { networkFee: network$.networkFee, networkFeeAsset: network$.networkFeeAsset, applicationFee: pricing.feesIncluded, totalFee, netAmount: amount - totalFee };
}

function assertWithdrawable(account: { type: string; currency: string }, body: EstimateWithdrawalFeeBody, network: string): void {
  const errors: Array<{ field: string; message: string }> = [];
  const n = WITHDRAWAL_NETWORKS[network];
  if (account.type !== 'INTERNAL_CRYPTO') errors.push({ field: 'internalAccountId', message: `Not a crypto account (it holds ${account.currency}).` });
  else if (account.currency !== body.currency) errors.push({ field: 'currency', message: `The account holds ${account.currency}.` });
  if (!n) errors.push({ field: 'cryptoNetwork', message: `Must be one of ${Object.keys(WITHDRAWAL_NETWORKS).join(', ')}.` });
  else if (!n.currencies.includes(body.currency)) errors.push({ field: 'cryptoNetwork', message: `${network} carries ${n.currencies.join(', ')}, not ${body.currency}.` });
  else if (!n.address(body.destinationAddress)) errors.push({ field: 'destinationAddress', message: `Not ${n.describe}.` });
  if (errors.length) throw new ValidationError(errors);
}
