import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { DomainError, ValidationError } from '../../platform/errors.js';
import { parseInput } from '../../platform/http/validate.js';
import type { Document } from '../../generated/prisma/client.js';
import { maskIdentifier } from '../customers/customers.model.js';
import { deleteDocument, getDocument, listDocuments, listDocumentsQuery, replaceDocument, uploadDocument, type DocumentUpload } from './documents.service.js';

export function documentResource(d: Document) {
  const out: Record<string, unknown> = {
    id: d.id,
    documentHolder: d.holderId,
    documentType: d.documentType,
    side: d.side ?? undefined,
    country: d.country,
    documentNumber: maskIdentifier(d.documentNumber),
    issuingAuthority: d.issuingAuthority ?? undefined,
    issuedOn: d.issuedOn ? d.issuedOn.toISOString().slice(0, 10) : undefined,
    fileName: d.fileName,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

const idParams = z.object({ documentId: z.string().min(1).max(200) });
/** The file bytes of a multipart request, kept beside (not in) the body so the body stays a small JSON-able object. */
const uploads = new WeakMap<FastifyRequest, Buffer>();

function toUpload(req: FastifyRequest): DocumentUpload {
  if (!req.isMultipart()) throw new DomainError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the document as multipart/form-data.');
  const body = (req.body ?? {}) as { fields: Record<string, string>; file?: { fileName: string } };
  const bytes = uploads.get(req);
  return { fields: body.fields ?? {}, file: body.file && bytes ? { fileName: body.file.fileName, bytes } : undefined };
}

/**
 * Documents: multipart is registered in this scope only (decisions B§1), with the spec's 10 MB
 * file limit. A larger file is 400 INVALID_INPUT naming `file` (decisions B§5.7: "400 bad type/size").
 */
export async function registerDocumentRoutes(api: FastifyInstance, maxBytes: number) {
  await api.register(async (scope) => {
    await scope.register(multipart, {
      attachFieldsToBody: true,
      limits: { fileSize: maxBytes, files: 1, fields: 12, fieldSize: 4096, parts: 14, headerPairs: 100 },
      async onFile(part) {
        try {
          uploads.set(this as unknown as FastifyRequest, await part.toBuffer());
        } catch (err) {
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
            throw new ValidationError([{ field: 'file', constraint: { maxBytes }, message: `The file is larger than ${maxBytes} bytes (10 MB).` }]);
          }
          throw err;
        }
        (part as unknown as { value: unknown }).value = part.filename;
      },
    });
    // The body becomes plain data (fields, and the file's name and digest) before idempotency fingerprints it.
    scope.addHook('preValidation', async (req) => {
      if (!req.isMultipart()) return;
      const raw = (req.body ?? {}) as Record<string, any>;
      const fields: Record<string, string> = {};
      let file: Record<string, unknown> | undefined;
      for (const [name, part] of Object.entries(raw)) {
        const p = Array.isArray(part) ? part[0] : part;
        if (p?.type === 'file') {
          const bytes = uploads.get(req);
          file = { fileName: String(p.filename ?? ''), size: bytes?.length ?? 0, sha256: bytes ? createHash('sha256').update(bytes).digest('hex') : '' };
          if (name !== 'file') throw new ValidationError([{ field: name, message: 'The file goes in the part named `file`.' }]);
        } else if (p && typeof p.value === 'string') fields[name] = p.value;
      }
      req.body = { fields, ...(file ? { file } : {}) };
    });

    scope.post('/documents', { config: { idempotent: true } }, async (req, reply) => {
      const doc = await uploadDocument(req.ctx, toUpload(req));
      reply.status(201);
      return documentResource(doc);
    });

    scope.put('/documents/:documentId', async (req) => {
      const { documentId } = parseInput(idParams, req.params);
      return documentResource(await replaceDocument(req.ctx, documentId, toUpload(req)));
    });
  });

  api.get('/documents', { config: { query: listDocumentsQuery } }, async (req) => {
    const page = await listDocuments(req.ctx, parseInput(listDocumentsQuery, req.query));
    return { ...page, data: page.data.map(documentResource) };
  });

  api.get('/documents/:documentId', async (req) => {
    const { documentId } = parseInput(idParams, req.params);
    return documentResource(await getDocument(req.ctx, documentId));
  });

  api.delete('/documents/:documentId', async (req, reply) => {
    const { documentId } = parseInput(idParams, req.params);
    await deleteDocument(req.ctx, documentId);
    return reply.status(204).send();
  });
}
