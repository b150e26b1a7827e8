import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { DomainError, ValidationError } from '../../platform/errors.js';
import { parseInput } from '../../platform/http/validate.js';
import { getImport, importResource, startImport } from './bulk-customers.service.js';

const files = new WeakMap<FastifyRequest, Buffer>();
const jobParams = z.object({ jobId: z.string().min(1).max(200) });

/**
 * POST /customers/bulk/csv (multipart, the file in part `file`, at most BULK_CSV_MAX_BYTES) → 202
 * `{jobId, status}`; GET /customers/bulk/jobs/{jobId} → the job with its progress and per-row errors.
 */
export async function bulkCustomerRoutes(api: FastifyInstance, maxBytes: number) {
  await api.register(async (scope) => {
    await scope.register(multipart, {
      attachFieldsToBody: true,
      limits: { fileSize: maxBytes, files: 1, fields: 4, fieldSize: 1024, parts: 5, headerPairs: 100 },
      async onFile(part) {
        try {
          files.set(this as unknown as FastifyRequest, await part.toBuffer());
        } catch (err) {
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
            throw new ValidationError([{ field: 'file', constraint: { maxBytes }, message: `The file is larger than ${maxBytes} bytes.` }]);
          }
          throw err;
        }
        (part as unknown as { value: unknown }).value = part.filename;
      },
    });
    // Plain data (the file's name and digest) before idempotency fingerprints the body.
    scope.addHook('preValidation', async (req) => {
      if (!req.isMultipart()) return;
      const raw = (req.body ?? {}) as Record<string, any>;
      const unknown = Object.keys(raw).filter((k) => k !== 'file');
      if (unknown.length) throw new ValidationError(unknown.map((field) => ({ field, message: 'Unknown field: send only the part `file`.' })));
      const bytes = files.get(req);
      req.body = bytes ? { file: { fileName: String(raw.file?.filename ?? ''), size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } } : {};
    });

    scope.post('/customers/bulk/csv', { config: { idempotent: true } }, async (req, reply) => {
      if (!req.isMultipart()) throw new DomainError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the CSV file as multipart/form-data in the part `file`.');
      const bytes = files.get(req);
      if (!bytes) throw new ValidationError([{ field: 'file', message: 'Required: the CSV file in the part `file`.' }]);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        throw new ValidationError([{ field: 'file', message: 'The CSV file must be UTF-8 text.' }]);
      }
      const job = await startImport(req.ctx, text);
      reply.status(202);
      return { jobId: job.id, status: job.status };
    });
  });

  api.get('/customers/bulk/jobs/:jobId', async (req) => {
    const { jobId } = parseInput(jobParams, req.params);
    return importResource(await getImport(req.ctx, jobId));
  });
}
