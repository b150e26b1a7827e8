import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { toWireNumber } from '../../platform/money.js';
import { estimateWithdrawalFee } from './withdrawal-fee.service.js';

/** REF EstimateCryptoWithdrawalFeeRequest: every field required. */
const estimateBody = z.strictObject({
  internalAccountId: z.string().min(1).max(200),
  currency: z.string().min(1).max(10),
  cryptoNetwork: z.string().min(1).max(32),
  amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  destinationAddress: z.string().min(1).max(2_000),
});

export async function withdrawalFeeRoutes(app: FastifyInstance) {
  // 200, not 201: an estimate creates nothing (REF).
  app.post('/crypto/estimate-withdrawal-fee', async (req) => {
    const e = await estimateWithdrawalFee(req.ctx, parseInput(estimateBody, req.body ?? {}));
    return {
      networkFee: toWireNumber(e.networkFee),
      networkFeeAsset: e.networkFeeAsset,
      applicationFee: toWireNumber(e.applicationFee),
      totalFee: toWireNumber(e.totalFee),
      netAmount: toWireNumber(e.netAmount),
    };
  });
}
