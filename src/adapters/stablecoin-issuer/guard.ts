import { asCallError, type AdapterLogger, type CallOptions } from '../common.js';
import { withDeadline } from '../guard.js';
import { ISSUER_OPERATION_STATUSES, IssuerError, type IssuerOperationResult, type StablecoinIssuer } from './port.js';

/**
 * Every issuer call bounded by PROVIDER_TIMEOUT_MS and read defensively (house style "Adapters"): a
 * status outside the port's vocabulary is PENDING, an answer without a reference is no answer, and any
 * error that is not a refusal (`retryable: false`) is retryable.
 */

const isStatus = (s: unknown): s is IssuerOperationResult['status'] => typeof s === 'string' && (ISSUER_OPERATION_STATUSES as readonly string[]).includes(s);
const text = (v: unknown, max: number) => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined);

export function normalizeIssuerResult(raw: unknown, adapterId: string, logger: AdapterLogger, fallbackReference?: string): IssuerOperationResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  const reference = text(r.reference, 200) ?? fallbackReference;
  if (!reference) throw new IssuerError(`issuer ${adapterId} answered without a reference`, true);
  let status: IssuerOperationResult['status'] = 'PENDING';
  if (isStatus(r.status)) status = r.status;
  else logger.warn({ adapter: adapterId, status: String(r.status), reference }, 'unknown issuer operation status read as PENDING');
  const out: IssuerOperationResult = { reference, status };
  const providerStatus = text(r.providerStatus, 64);
  if (providerStatus) out.providerStatus = providerStatus;
  if (r.fundingInstructions && typeof r.fundingInstructions === 'object' && !Array.isArray(r.fundingInstructions)) out.fundingInstructions = r.fundingInstructions as Record<string, unknown>;
  if (status === 'FAILED') out.failureReason = text(r.failureReason, 64) ?? 'PROVIDER_OPERATION_FAILED';
  if (status === 'PENDING' && r.notFound === true) out.notFound = true;
  return out;
}

export function guardIssuer(inner: StablecoinIssuer, timeoutMs: number, logger: AdapterLogger): StablecoinIssuer {
  const id = inner.id;
  const call = async <T>(what: string, opts: CallOptions | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await withDeadline(timeoutMs, opts?.signal, run, () => new IssuerError(`issuer ${id}: ${what} did not answer within ${timeoutMs} ms`, true));
    } catch (err) {
      throw asCallError(err, IssuerError, `issuer ${id}`);
    }
  };
  const out: StablecoinIssuer = {
    id,
    provider: inner.provider,
    async verifyCredentials(creds, opts) {
      const raw = await call('verifyCredentials', opts, (signal) => inner.verifyCredentials(creds, { ...opts, signal }));
      if (raw?.status === 'VALID') return { status: 'VALID', accounts: Array.isArray(raw.accounts) ? raw.accounts.filter((a): a is string => typeof a === 'string' && a.length > 0) : [] };
      if (raw?.status === 'INVALID' || raw?.status === 'REVOKED') return { status: raw.status, ...(raw.reason ? { reason: String(raw.reason).slice(0, 200) } : {}) };
      // Neither yes nor no: the outcome is unknown, never read as a verdict on the credentials.
      throw new IssuerError(`issuer ${id}: verifyCredentials answered outside the protocol`, true);
    },
    async resolveToken(account, token, opts) {
      return call('resolveToken', opts, (signal) => inner.resolveToken(account, token, { ...opts, signal }));
    },
    async createOperation(account, req, opts) {
      const raw = await call('createOperation', opts, (signal) => inner.createOperation(account, req, { ...opts, signal }));
      return normalizeIssuerResult(raw, id, logger);
    },
    async getOperation(account, reference, opts) {
      const raw = await call('getOperation', opts, (signal) => inner.getOperation(account, reference, { ...opts, signal }));
      return normalizeIssuerResult(raw, id, logger, reference);
    },
  };
  if (inner.simulateFunding) out.simulateFunding = inner.simulateFunding.bind(inner);
  if (inner.simulateCredentialStatus) out.simulateCredentialStatus = inner.simulateCredentialStatus.bind(inner);
  if (inner.handleWebhook) out.handleWebhook = inner.handleWebhook.bind(inner);
  if (inner.close) out.close = inner.close.bind(inner);
  return out;
}
