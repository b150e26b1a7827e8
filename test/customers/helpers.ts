import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { TestPlatform } from '../helpers/app.js';

/** Builders with valid defaults; tests override what they are about. */
export function anIndividual(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `ind-${randomBytes(4).toString('hex')}`,
    fullName: 'Ada Lovelace',
    birthDate: '1990-12-10',
    nationality: 'US',
    address: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
    idType: 'SSN',
    identifier: '123-45-6789',
    currencies: ['USD'],
    ...overrides,
  };
}

export function aBusiness(overrides: Record<string, unknown> = {}, info: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerType: 'BUSINESS',
    platformCustomerId: `biz-${randomBytes(4).toString('hex')}`,
    currencies: ['USD'],
    businessInfo: { legalName: 'Acme Widgets LLC', country: 'US', taxId: '12-3456789', incorporatedOn: '2015-03-01', ...info },
    ...overrides,
  };
}

export function anOwner(customerId: string, overrides: Record<string, unknown> = {}, info: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerId,
    roles: ['UBO', 'CONTROL_PERSON'],
    ownershipPercentage: 60,
    personalInfo: {
      firstName: 'Grace',
      lastName: 'Hopper',
      birthDate: '1970-01-01',
      nationality: 'US',
      address: { line1: '2 Elm St', postalCode: '54321', country: 'US' },
      idType: 'SSN',
      identifier: '987-65-4321',
      ...info,
    },
    ...overrides,
  };
}

/** A colour photo (noise, so every pixel differs) of the given size. */
export async function colourPhoto(width = 800, height = 700, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const raw = randomBytes(width * height * 3);
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  return format === 'png' ? img.png({ compressionLevel: 1 }).toBuffer() : img.jpeg().toBuffer();
}

export async function grayPhoto(width = 800, height = 700): Promise<Buffer> {
  const raw = randomBytes(width * height);
  return sharp(raw, { raw: { width, height, channels: 1 } }).toColourspace('srgb').png().toBuffer();
}

/** The smallest PDF that sniffs as application/pdf. */
export const TINY_PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Count 0/Kids[]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

export interface FilePart {
  name?: string;
  fileName: string;
  contentType: string;
  content: Buffer;
}

/** A multipart/form-data body for app.inject. */
export function multipartBody(fields: Record<string, string | undefined>, file?: FilePart): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----svc${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.fileName}"\r\nContent-Type: ${file.contentType}\r\n\r\n`));
    chunks.push(file.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export async function upload(p: TestPlatform, fields: Record<string, string | undefined>, file?: FilePart, headers: Record<string, string> = {}) {
  const body = multipartBody(fields, file);
  return p.request({ method: 'POST', url: '/documents', payload: body.payload, headers: { ...body.headers, ...headers } });
}

export async function createCustomer(p: TestPlatform, body: Record<string, unknown>) {
  const res = await p.request({ method: 'POST', url: '/customers', payload: body });
  if (res.statusCode !== 201) throw new Error(`create customer: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Uploaded files go to a fresh temporary directory, not the repository's var/. */
export const tempStorage = () => ({ DOCUMENT_STORAGE_DIR: mkdtempSync(path.join(tmpdir(), 'svc-docs-')) });
