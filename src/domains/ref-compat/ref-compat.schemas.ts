import { z } from 'zod';
import { PURPOSES_OF_PAYMENT } from '../payments/index.js';

/**
 * Request schemas of the paths REF's client calls where the spec has another path or body
 * (issue 13; docs/decisions.md "Issue 13 — REF client compatibility").
 */
const id = z.string().min(1).max(200);
const amount = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const currencyCode = z.string().regex(/^[A-Z]{3,4}$/, 'Must be a currency code such as USD.');

/** `GET /customers/kyc-link`: REF's client names the customer by `platformCustomerId`; `customerId` also works. */
export const kycLinkQuery = z
  .object({
    platformCustomerId: z.string().min(1).max(255).optional(),
    customerId: id.optional(),
    redirectUri: z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL.' }).max(2048).optional(),
  })
  .refine((q) => q.platformCustomerId || q.customerId, { message: 'platformCustomerId or customerId is required.', path: ['platformCustomerId'] });

/** `POST /sandbox/send`: the payer of a real-time funded quote sends the money. */
export const sandboxSendBody = z.strictObject({ quoteId: id, currencyCode, currencyAmount: amount.optional() });

/** `POST /sandbox/uma/receive`: an UMA counterparty pays one of the platform's customers. */
export const sandboxUmaReceiveBody = z
  .strictObject({
    senderUmaAddress: z.string().min(1).max(400),
    receivingCurrencyCode: currencyCode,
    receivingCurrencyAmount: amount,
    customerId: id.optional(),
    receiverUmaAddress: z.string().min(1).max(400).optional(),
  })
  .refine((b) => b.customerId || b.receiverUmaAddress, { message: 'customerId or receiverUmaAddress is required.', path: ['receiverUmaAddress'] });

/** `GET /receiver/external-account/{accountId}`. */
export const accountLookupParams = z.object({ accountId: id });
export const accountLookupQuery = z.object({ customerId: id.optional(), senderUmaAddress: z.string().min(1).max(400).optional() });

/** `POST /transfer-in` (REF, deprecated): same-currency moves by account id. */
export const transferBody = z.strictObject({
  source: z.strictObject({ accountId: id }),
  destination: z.strictObject({ accountId: id }),
  amount,
});
export type TransferBody = z.output<typeof transferBody>;

/**
 * `POST /transfer-out` (REF `TransferOutRequest`, issue 25): REF's memo, purpose and chosen rail, with the
 * same names and bounds as on POST /quotes, which the transfer is executed as.
 */
export const transferOutBody = z.strictObject({
  source: z.strictObject({ accountId: id }),
  destination: z.strictObject({ accountId: id, paymentRail: z.string().regex(/^[A-Z_]{2,20}$/, 'Must be a payment rail such as ACH.').optional() }),
  amount: amount.optional(),
  remittanceInformation: z.string().max(80).optional(),
  purposeOfPayment: z.enum(PURPOSES_OF_PAYMENT).optional(),
});
export type TransferOutBody = z.output<typeof transferOutBody>;
