import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { AppDeps } from '../../deps.js';
import { queuePrefix } from '../../platform/queue.js';
import { BULK_CUSTOMERS_QUEUE, finish, processImport } from './bulk-customers.service.js';
import { currentJobData } from '../../platform/ids.js';

interface ImportJob {
  platformId: string;
  importId: string;
}

/** One import at a time per worker: rows are processed in order and recorded one by one. */
export function startBulkCustomersWorker(deps: AppDeps, connection: ConnectionOptions): Worker {
  const worker = new Worker(
    BULK_CUSTOMERS_QUEUE,
    async (job: Job) => {
      const data = currentJobData(job.data as ImportJob);
      await processImport(deps, data.platformId, data.importId, (p) => job.updateProgress(p));
    },
    { connection, prefix: queuePrefix(deps.config), concurrency: 1 },
  );
  worker.on('failed', (job, err) => {
    if (!job) return;
    deps.logger.error({ err, importId: (job.data as ImportJob).importId, attemptsMade: job.attemptsMade }, 'bulk customer import attempt failed');
    if (job.attemptsMade >= (job.opts.attempts ?? 1)) {
      const data = currentJobData(job.data as ImportJob);
      finish(deps, data.platformId, data.importId, 'FAILED').catch((e) => deps.logger.error({ err: e }, 'could not record a failed bulk import'));
    }
  });
  return worker;
}
