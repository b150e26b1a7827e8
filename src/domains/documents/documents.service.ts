import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError, ConflictError, DomainError, NotFoundError, ValidationError, type FieldError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { decodeCursor, paginationQuery, toPage, type Page } from '../../platform/http/pagination.js';
import { toFieldErrors } from '../../platform/http/validate.js';
import type { Document, Prisma } from '../../generated/prisma/client.js';
import { country, oneOf, pastDate, text, getActiveCustomer, getOwner } from '../customers/index.js';
import { DOCUMENT_TYPES, IDENTITY_DOCUMENT_TYPES, IMAGE_PROBLEM_MESSAGES, SIDES, TWO_SIDED_DOCUMENT_TYPES } from './documents.model.js';
import { inspectImage, sniffDocumentType } from './documents.inspect.js';

/** The multipart request, already read: text fields and the one file. */
export interface DocumentUpload {
  fields: Record<string, string>;
  file?: { fileName: string; bytes: Buffer };
}

const uploadFields = z.strictObject({
  documentHolder: z.string().min(1).max(200),
  documentType: oneOf(DOCUMENT_TYPES),
  country: country(),
  side: oneOf(SIDES).optional(),
  documentNumber: text(64).optional(),
  issuingAuthority: text(255).optional(),
  /** Extension: the date printed on the document (proof of address must be within 3 months). */
  issuedOn: pastDate().optional(),
});
type UploadFields = z.infer<typeof uploadFields>;

function documentRules(f: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const type = String(f.documentType ?? '');
  if (IDENTITY_DOCUMENT_TYPES.has(type)) {
    if (!f.documentNumber) errors.push({ field: 'documentNumber', message: `Required for a ${type}.` });
    if (!f.issuingAuthority) errors.push({ field: 'issuingAuthority', message: `Required for a ${type}.` });
  }
  if (TWO_SIDED_DOCUMENT_TYPES.has(type) && !f.side) errors.push({ field: 'side', constraint: { enum: [...SIDES] }, message: `A ${type} is uploaded one side at a time: FRONT or BACK.` });
  if (type === 'PASSPORT' && f.side === 'BACK') errors.push({ field: 'side', message: 'A passport is a single image (FRONT or no side).' });
  return errors;
}

/** Every bad field at once, then the file's real type (400 UNSUITABLE_DOCUMENT when not PDF/JPEG/PNG). */
async function parseUpload(upload: DocumentUpload): Promise<{ fields: UploadFields; contentType: string; file: { fileName: string; bytes: Buffer } }> {
  const result = uploadFields.safeParse(upload.fields);
  const errors = [...(result.success ? [] : toFieldErrors(result.error)), ...documentRules(upload.fields)];
  if (!upload.file || upload.file.bytes.length === 0) errors.push({ field: 'file', message: upload.file ? 'The file is empty.' : 'Required.' });
  const seen = new Set<string>();
  const unique = errors.filter((e) => (seen.has(e.field) ? false : (seen.add(e.field), true)));
  if (unique.length) throw new ValidationError(unique);
  const contentType = await sniffDocumentType(upload.file!.bytes);
  if (!contentType) {
    throw new BadRequestError('UNSUITABLE_DOCUMENT', 'The file is not a PDF, JPEG or PNG (judged by its content, not its name or declared type).', {
      errors: [{ field: 'file', constraint: { enum: ['application/pdf', 'image/jpeg', 'image/png'] }, message: 'Must be a PDF, JPEG or PNG file.' }],
    });
  }
  return { fields: result.data!, contentType, file: upload.file! };
}

/** 422 DOCUMENT_REJECTED (spec "Others"; decision A18) for an unusable photo. */
async function assertUsable(contentType: string, bytes: Buffer): Promise<void> {
  if (contentType === 'application/pdf') return;
  const problem = await inspectImage(bytes);
  if (problem) throw new DomainError(422, 'DOCUMENT_REJECTED', IMAGE_PROBLEM_MESSAGES[problem], { reason: problem });
}

/** The customer a holder id belongs to. Errors: 400 (not a holder id), 404 USER_NOT_FOUND / NOT_FOUND, 410. */
async function resolveHolder(ctx: Ctx, holderId: string): Promise<string> {
  if (holderId.startsWith('Customer:')) return (await getActiveCustomer(ctx, holderId)).id;
  if (holderId.startsWith('BeneficialOwner:')) {
    const owner = await getOwner(ctx, holderId);
    return (await getActiveCustomer(ctx, owner.customerId)).id;
  }
  throw new ValidationError([{ field: 'documentHolder', message: 'Must be a Customer or BeneficialOwner id.' }]);
}

const storageKey = (platformId: string, documentId: string) => `${platformId}/${documentId}`.replace(/:/g, '_');
const asDate = (s: string | undefined) => (s ? new Date(`${s}T00:00:00Z`) : null);
const safeName = (name: string) => (name.replace(/[\u0000-\u001f\u007f]/g, '').trim() || 'document').slice(0, 255);

/**
 * POST /documents. Errors: 400 INVALID_INPUT (every bad field; the file over DOCUMENT_MAX_BYTES),
 * 400 UNSUITABLE_DOCUMENT (not PDF/JPEG/PNG by content), 404 holder, 410, 422 DOCUMENT_REJECTED.
 */
export async function uploadDocument(ctx: Ctx, upload: DocumentUpload): Promise<Document> {
  const { fields, contentType, file } = await parseUpload(upload);
  const customerId = await resolveHolder(ctx, fields.documentHolder);
  await assertUsable(contentType, file.bytes);
  const id = newId('Document');
  const key = storageKey(ctx.platformId, id);
  const storage = ctx.adapters.storage;
  await storage.put(key, file.bytes, contentType);
  const now = ctx.clock.now();
  try {
    return await ctx.db.document.create({
      data: {
        id,
        customerId,
        holderId: fields.documentHolder,
        ...metadata(fields, contentType, file),
        storageKey: key,
        createdAt: now,
        updatedAt: now,
      } as Prisma.DocumentUncheckedCreateInput,
    });
  } catch (err) {
    await storage.delete(key).catch(() => undefined);
    throw err;
  }
}

function metadata(fields: UploadFields, contentType: string, file: { fileName: string; bytes: Buffer }) {
  return {
    documentType: fields.documentType,
    side: fields.side ?? null,
    country: fields.country,
    documentNumber: fields.documentNumber ?? null,
    issuingAuthority: fields.issuingAuthority ?? null,
    issuedOn: asDate(fields.issuedOn),
    fileName: safeName(file.fileName),
    contentType,
    sizeBytes: file.bytes.length,
    sha256: createHash('sha256').update(file.bytes).digest('hex'),
  };
}

export const documentNotFound = () => new NotFoundError('NOT_FOUND', 'Document not found.');

/** Errors: 404 NOT_FOUND (also another platform's document). */
export async function getDocument(ctx: Ctx, id: string): Promise<Document> {
  const d = await ctx.db.document.findFirst({ where: { id } });
  if (!d) throw documentNotFound();
  return d;
}

const submittedConflict = () => new ConflictError('CONFLICT', 'The document was submitted for verification and can no longer be changed or deleted.');

/** PUT /documents/{id}: replaces file and metadata. Errors: as POST, plus 404 and 409 once submitted. */
export async function replaceDocument(ctx: Ctx, id: string, upload: DocumentUpload): Promise<Document> {
  const existing = await getDocument(ctx, id);
  if (existing.submittedAt) throw submittedConflict();
  const holder = upload.fields.documentHolder ?? existing.holderId;
  if (holder !== existing.holderId) throw new ValidationError([{ field: 'documentHolder', message: 'A document cannot move to another holder; upload a new one.' }]);
  const { fields, contentType, file } = await parseUpload({ ...upload, fields: { ...upload.fields, documentHolder: holder } });
  await getActiveCustomer(ctx, existing.customerId);
  await assertUsable(contentType, file.bytes);
  const key = `${existing.storageKey.split(".v")[0]}.v${ctx.clock.now().getTime().toString(36)}`;
  const storage = ctx.adapters.storage;
  await storage.put(key, file.bytes, contentType);
  const res = await ctx.db.document.updateMany({
    where: { id, submittedAt: null },
    data: { ...metadata(fields, contentType, file), storageKey: key, updatedAt: ctx.clock.now() },
  });
  if (res.count !== 1) {
    await storage.delete(key).catch(() => undefined);
    throw submittedConflict();
  }
  await storage.delete(existing.storageKey).catch(() => undefined);
  return getDocument(ctx, id);
}

/** DELETE /documents/{id}. Errors: 404, 409 CONFLICT once submitted for verification. */
export async function deleteDocument(ctx: Ctx, id: string): Promise<void> {
  const existing = await getDocument(ctx, id);
  const res = await ctx.db.document.deleteMany({ where: { id, submittedAt: null } });
  if (res.count !== 1) throw submittedConflict();
  await ctx.adapters.storage.delete(existing.storageKey).catch((err) => ctx.logger.warn({ err, documentId: id }, 'document file not deleted'));
}

export const listDocumentsQuery = z.strictObject({ ...paginationQuery, documentHolder: z.string().min(1).max(200).optional() });

export async function listDocuments(ctx: Ctx, q: z.infer<typeof listDocumentsQuery>): Promise<Page<Document>> {
  const before = decodeCursor(q.cursor);
  const rows = await ctx.db.document.findMany({
    where: { ...(q.documentHolder ? { holderId: q.documentHolder } : {}), ...(before ? { id: { lt: before } } : {}) },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  return toPage(rows, q.limit, (r) => r);
}

/** The documents of a customer and of its owners, for verification. */
export async function documentsOfCustomer(db: TenantTx, customerId: string): Promise<Document[]> {
  return db.document.findMany({ where: { customerId }, orderBy: { id: 'asc' } });
}

/** Called in the transaction that sends a case to the provider: from now on the documents are evidence. */
export async function markDocumentsSubmitted(tx: TenantTx, customerId: string, now: Date): Promise<void> {
  await tx.document.updateMany({ where: { customerId, submittedAt: null }, data: { submittedAt: now } });
}

/** The stored bytes of a document (not served by the API; for providers and operators). */
export async function readDocumentFile(ctx: Ctx, id: string): Promise<Buffer | undefined> {
  return ctx.adapters.storage.get((await getDocument(ctx, id)).storageKey);
}
