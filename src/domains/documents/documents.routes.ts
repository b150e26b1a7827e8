import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { DomainError, ValidationError } from '../../platform/errors.js';
import { assertStorable, isStorableText, parseInput } from '../../platform/http/validate.js';
import type { Document } from '../../generated/prisma/client.js';
import { maskIdentifier } from '../customers/index.js';
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
const FIELD_SIZE = 4096;

/**
 * A failure while reading the parts is about the request body: the plugin's own errors keep their
 * mapping (limits → 413/400 in platform/http/errors.ts), anything the parser raised without a
 * status (busboy: "Boundary not found", "Unexpected end of multipart data", …) is 400.
 */
function multipartFailure(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  const e = err as { statusCode?: number; message?: string };
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return err;
  return new ValidationError([{ field: '(body)', message: `Malformed multipart/form-data body: ${String(e?.message ?? err).slice(0, 200)}` }], 'The multipart body could not be read.');
}
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
      limits: { fileSize: maxBytes, files: 1, fields: 12, fieldSize: FIELD_SIZE, parts: 14, headerPairs: 100 },
    });
    // The parts are read here (not by the plugin's attachFieldsToBody hook) so that every way a
    // multipart body can be broken — no or oversized boundary, cut short, malformed part headers —
    // is a 4xx naming the body, never a 500. The body then becomes plain data (fields, and the
    // file's name and digest) before idempotency fingerprints it.
    scope.addHook('preValidation', async (req) => {
      if (!req.isMultipart()) return;
      // RFC 2046: a boundary is 1 to 70 characters. Without a usable one no part can be found.
      const boundary = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(req.headers['content-type'] ?? '');
      const b = boundary ? (boundary[1] ?? boundary[2] ?? '') : '';
      if (b.length < 1 || b.length > 70) {
        throw new ValidationError([{ field: '(body)', message: 'Content-Type multipart/form-data needs a boundary of 1 to 70 characters.' }], 'The multipart body could not be read.');
      }
      const fields: Record<string, string> = {};
      let file: Record<string, unknown> | undefined;
      try {
        for await (const part of req.parts()) {
          if (part.type === 'file') {
            let bytes: Buffer;
            try {
              bytes = await part.toBuffer();
            } catch (err) {
              if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
                throw new ValidationError([{ field: 'file', constraint: { maxBytes }, message: `The file is larger than ${maxBytes} bytes (10 MB).` }]);
              }
              throw err;
            }
            if (part.fieldname !== 'file') throw new ValidationError([{ field: part.fieldname || '(body)', message: 'The file goes in the part named `file`.' }]);
            uploads.set(req, bytes);
            file = { fileName: part.filename ?? '', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
            assertStorable(file.fileName, 'file');
          } else {
            const value = part.value;
            if (part.valueTruncated) {
              throw new ValidationError([{ field: part.fieldname, constraint: { maxLength: FIELD_SIZE }, message: `Longer than ${FIELD_SIZE} bytes.` }]);
            }
            if (typeof value !== 'string') throw new ValidationError([{ field: part.fieldname, message: 'Must be a text field.' }]);
            if (!isStorableText(part.fieldname)) throw new ValidationError([{ field: '(body)', message: 'A part name contains a character that cannot be stored.' }]);
            assertStorable(value, part.fieldname);
            fields[part.fieldname] ??= value;
          }
        }
      } catch (err) {
        throw multipartFailure(err);
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
