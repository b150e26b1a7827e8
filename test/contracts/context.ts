import { generateKeyPairSync, sign } from 'node:crypto';
import type { AdapterContext, AdapterKind, AdapterSigner } from '../../src/adapters/common.js';
import type { PayoutReport, RailAdapterContext } from '../../src/adapters/rails/port.js';
import type { KycAdapterContext } from '../../src/adapters/kyc/port.js';
import type { LivenessAdapterContext, LivenessOutcome } from '../../src/adapters/liveness/port.js';
import type { BeneficiaryCheckAdapterContext } from '../../src/adapters/beneficiary-check/port.js';

/** What the contract harness hands an adapter: a real signer, a quiet logger, and callbacks that record. */
export interface ContractContext extends RailAdapterContext, KycAdapterContext, LivenessAdapterContext, BeneficiaryCheckAdapterContext {
  reported: {
    payouts: PayoutReport[];
    kycCases: string[];
    liveness: Array<{ token: string; outcome: LivenessOutcome }>;
    beneficiaryChecks: string[];
  };
}

export function testSigner(): AdapterSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const signRaw = (body: string | Buffer) => sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, privateKey);
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    signRaw,
    signatureHeader: (body) => JSON.stringify({ v: '1', s: signRaw(body).toString('base64') }),
  };
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

export function contractContext(kind: AdapterKind, adapterId: string, overrides: Partial<AdapterContext> = {}): ContractContext {
  const reported: ContractContext['reported'] = { payouts: [], kycCases: [], liveness: [], beneficiaryChecks: [] };
  return {
    adapterId,
    kind,
    environment: 'sandbox',
    logger: process.env.ADAPTER_TEST_VERBOSE ? console : quiet,
    clock: { now: () => new Date() },
    signer: testSigner(),
    webhookUrl: `http://127.0.0.1:9/2025-10-13/adapters/${adapterId}/webhooks`,
    timeoutMs: 5_000,
    ...overrides,
    reported,
    async reportPayoutStatus(report) {
      reported.payouts.push(report);
      return 'ACCEPTED';
    },
    async reportCaseUpdated(caseId) {
      reported.kycCases.push(caseId);
      return 'ACCEPTED';
    },
    async reportLivenessOutcome(r) {
      reported.liveness.push(r);
      return 'ACCEPTED';
    },
    async reportCheckUpdated(reference) {
      reported.beneficiaryChecks.push(reference);
      return 'ACCEPTED';
    },
  };
}

/** Rejects (or resolves) within `ms`; a call that hangs on an aborted signal fails the contract. */
export async function settlesWithin<T>(ms: number, p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms);
  });
  try {
    return { ok: true, value: await Promise.race([p, deadline]) };
  } catch (error) {
    if (error instanceof Error && error.message === `did not settle within ${ms} ms`) throw error;
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
