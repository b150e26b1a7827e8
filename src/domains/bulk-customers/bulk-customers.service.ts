import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { DomainError, NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { statusColumn, transition, tryTransition } from '../../platform/state-machine.js';
import { queueOf } from '../../platform/queue.js';
import type { BulkCustomerImport } from '../../generated/prisma/client.js';
import { createCustomer } from '../customers/index.js';
import { bulkImportLifecycle } from './bulk-customers.model.js';
import { correlationIdOf, customerBodyOf, parseCustomerCsv, type CsvRow } from './bulk-customers.csv.js';

export const BULK_CUSTOMERS_QUEUE = 'bulk-customers';
const importStatus = statusColumn(bulkImportLifecycle, 'bulk_customer_imports', 'status');
/** A crash mid-import is retried from the last recorded row. */
const ATTEMPTS = 5;

export interface ImportError {
  correlationId: string;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * POST /customers/bulk/csv: parses the file (header and CSV errors are this call's 400), stores the
 * rows and queues their processing. Errors: 400 INVALID_INPUT.
 */
export async function startImport(ctx: Ctx, csv: string): Promise<BulkCustomerImport> {
  const rows = parseCustomerCsv(csv, ctx.config.BULK_CSV_MAX_ROWS);
  const now = ctx.clock.now();
  const job = await ctx.db.bulkCustomerImport.create({
    data: { id: newId('BulkCustomerImport'), status: 'PENDING', rows: rows as never, total: rows.length, createdAt: now, updatedAt: now } as never,
  });
  await queueOf(ctx, BULK_CUSTOMERS_QUEUE).add('import', { platformId: ctx.platformId, importId: job.id }, {
    jobId: job.id.replace(/:/g, '-'),
    attempts: ATTEMPTS,
    backoff: { type: 'exponential', delay: 1000 },
  });
  return job;
}

/** Errors: 404 BULK_UPLOAD_JOB_NOT_FOUND (also another platform's job). */
export async function getImport(ctx: Ctx, id: string): Promise<BulkCustomerImport> {
  const job = await ctx.db.bulkCustomerImport.findFirst({ where: { id } });
  if (!job) throw new NotFoundError('BULK_UPLOAD_JOB_NOT_FOUND', 'Bulk upload job not found.');
  return job;
}

/**
 * A retried job may find its row's customer already created by the attempt that crashed before
 * recording it: same UMA address and platformCustomerId, created since the import started.
 */
async function createdByEarlierAttempt(ctx: Ctx, job: BulkCustomerImport, body: Record<string, unknown>): Promise<boolean> {
  if (typeof body.umaAddress !== 'string') return false;
  const c = await ctx.db.customer.findFirst({ where: { umaAddress: body.umaAddress, platformCustomerId: String(body.platformCustomerId ?? ''), createdAt: { gte: job.createdAt } } });
  return c !== null;
}

/** One row: a customer created whole by the customers service, or the reason it was not. */
async function importRow(ctx: Ctx, job: BulkCustomerImport, row: CsvRow, index: number): Promise<ImportError | undefined> {
  const body = customerBodyOf(row);
  try {
    await createCustomer(ctx, body);
    return undefined;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (await createdByEarlierAttempt(ctx, job, body)) return undefined;
    return { correlationId: correlationIdOf(row, index), code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  }
}

/** REF's BulkCustomerImportJob. */
export function importResource(j: BulkCustomerImport) {
  const errors = j.errors as unknown as ImportError[];
  return {
    id: j.id,
    status: j.status,
    progress: { total: j.total, processed: j.processed, successful: j.successful, failed: j.failed },
    ...(errors.length ? { errors } : {}),
    ...(j.completedAt ? { completedAt: j.completedAt.toISOString() } : {}),
  };
}

/**
 * The queued work: rows from the last recorded one, each recorded (counts and errors) as it
 * finishes, so progress is visible and a retried job neither skips nor repeats a row. Ends
 * COMPLETED with BULK_UPLOAD.COMPLETED, whatever the share of failed rows.
 */
export async function processImport(deps: AppDeps, platformId: string, importId: string, onProgress: (percent: number) => Promise<void>): Promise<void> {
  const ctx = ctxFor(deps, platformId);
  let job = await getImport(ctx, importId);
  if (job.status === 'COMPLETED' || job.status === 'FAILED') return;
  if (job.status === 'PENDING') job = await transition(ctx.db, ctx, importStatus, 'start', job.id, { from: job.status });
  const rows = job.rows as unknown as CsvRow[];
  for (let i = job.processed; i < rows.length; i++) {
    const error = await importRow(ctx, job, rows[i]!, i);
    const errors = error ? [...(job.errors as unknown as ImportError[]), error] : (job.errors as unknown as ImportError[]);
    job = await ctx.db.bulkCustomerImport.update({
      where: { platformId_id: { platformId: ctx.platformId, id: job.id } },
      data: { processed: i + 1, successful: job.successful + (error ? 0 : 1), failed: job.failed + (error ? 1 : 0), errors: errors as never, updatedAt: ctx.clock.now() },
    });
    await onProgress(Math.floor(((i + 1) * 100) / rows.length));
  }
  await finish(deps, platformId, importId, 'COMPLETED');
}

/** COMPLETED after the last row, FAILED when the job gave up (its attempts ran out): with its webhook. */
export async function finish(deps: AppDeps, platformId: string, importId: string, status: 'COMPLETED' | 'FAILED'): Promise<void> {
  const ctx = ctxFor(deps, platformId);
  // A second finish (a retried job, a late give-up) finds the import finished and moves nothing.
  await tryTransition(ctx.db, ctx, importStatus, status === 'COMPLETED' ? 'complete' : 'fail', importId, {
    set: { completedAt: ctx.clock.now() },
    events: (job) => ({ type: `BULK_UPLOAD.${status}`, data: importResource(job) }),
  });
}
