import { z } from 'zod';
import { NotImplementedError } from '../../platform/errors.js';

/** Spec "Platform fees": what is supported today; anything else is 501 NOT_IMPLEMENTED (decision §8). */
export const SUPPORTED_FEE_CURRENCY = 'USD';
export const SUPPORTED_FEE_RAILS = ['ACH', 'RTP', 'FEDNOW', 'WIRE'] as const;
export const SUPPORTED_ORIGINATOR = 'SVC';

const bps = z.number().int().min(0).max(10_000);
const fixedFee = z.object({
  amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  currency: z.string().regex(/^[A-Z]{3,4}$/),
});

export const feeConfigInput = z.discriminatedUnion('feeType', [
  z.object({
    feeType: z.literal('CROSS_CURRENCY_TRANSACTION'),
    sourceCurrency: z.string().regex(/^[A-Z]{3,4}$/),
    variableFeeBps: bps,
    fixedFee,
  }),
  z.object({
    feeType: z.literal('RAIL'),
    rail: z.string().regex(/^[A-Z_]+$/),
    direction: z.string().regex(/^[A-Z_]+$/),
    originator: z.string().regex(/^[A-Z_]+$/),
    variableFeeBps: bps,
    fixedFee,
  }),
]);
export type FeeConfigInput = z.infer<typeof feeConfigInput>;

/** The merge key of the spec: (feeType, sourceCurrency) or (feeType, rail, direction, originator). */
export function feeConfigKey(c: FeeConfigInput): string {
  return c.feeType === 'CROSS_CURRENCY_TRANSACTION'
    ? `CROSS_CURRENCY_TRANSACTION|${c.sourceCurrency}`
    : `RAIL|${c.rail}|${c.direction}|${c.originator}`;
}

/** Throws NOT_IMPLEMENTED for structurally valid configs the service cannot charge yet. */
export function assertFeeConfigSupported(c: FeeConfigInput, index: number): void {
  const where = `feeConfigs[${index}]`;
  const unsupported = (field: string, message: string) => {
    throw new NotImplementedError(message, { errors: [{ field: `${where}.${field}`, message }] });
  };
  if (c.fixedFee.currency !== SUPPORTED_FEE_CURRENCY) unsupported('fixedFee.currency', 'Fixed fees are supported only in USD.');
  if (c.feeType === 'CROSS_CURRENCY_TRANSACTION') {
    if (c.sourceCurrency !== SUPPORTED_FEE_CURRENCY) unsupported('sourceCurrency', 'Cross-currency fees are supported only for sending currency USD.');
    return;
  }
  if (!(SUPPORTED_FEE_RAILS as readonly string[]).includes(c.rail)) unsupported('rail', `Rail fees are supported only for ${SUPPORTED_FEE_RAILS.join(', ')}.`);
  if (c.direction !== 'OUT') unsupported('direction', 'Rail fees are supported only for direction OUT.');
  if (c.originator !== SUPPORTED_ORIGINATOR) unsupported('originator', `Rail fees are supported only for originator ${SUPPORTED_ORIGINATOR}.`);
}

/** Spec: both components 0 deactivates the config for new transactions. */
export function isActiveFee(c: { variableFeeBps: number; fixedFee: { amount: number } }): boolean {
  return c.variableFeeBps !== 0 || c.fixedFee.amount !== 0;
}
