import { parse } from 'csv-parse/sync';
import { ValidationError, type FieldError } from '../../platform/errors.js';

/**
 * REF's bulk CSV format (`customers.bulk.uploadCsv`): one customer per row. Pure: parsing and the
 * mapping of a row onto the spec's create-customer body; the customers service validates the rest.
 */
export const REQUIRED_COLUMNS = ['umaAddress', 'platformCustomerId', 'customerType'] as const;
export const OPTIONAL_COLUMNS = [
  'fullName', 'birthDate', 'addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country',
  'email', 'businessLegalName', 'businessRegistrationNumber', 'businessTaxId', 'platformAccountId', 'description',
  // Columns beyond REF's list that the spec's customer has.
  'phoneNumber', 'nationality', 'currencies', 'businessIncorporatedOn',
] as const;
const KNOWN = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]);

export type CsvRow = Record<string, string>;

/** Header problems and malformed CSV are the upload's 400; row problems are the job's per-row errors. */
export function parseCustomerCsv(text: string, maxRows: number): CsvRow[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: false, max_record_size: 64 * 1024 }) as string[][];
  } catch (err) {
    throw new ValidationError([{ field: 'file', message: `Not a valid CSV file: ${(err as Error).message}` }]);
  }
  const [header, ...body] = records;
  if (!header) throw new ValidationError([{ field: 'file', message: 'The CSV file is empty; its first line names the columns.' }]);
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const name of header) {
    if (!KNOWN.has(name)) errors.push({ field: `file.columns.${name}`, message: 'Unknown column.', constraint: { enum: [...KNOWN] } });
    if (seen.has(name)) errors.push({ field: `file.columns.${name}`, message: 'Column appears twice.' });
    seen.add(name);
  }
  for (const name of REQUIRED_COLUMNS) if (!seen.has(name)) errors.push({ field: `file.columns.${name}`, message: 'Required column is missing.' });
  if (body.length === 0) errors.push({ field: 'file', message: 'The CSV file has no customer rows.' });
  if (body.length > maxRows) errors.push({ field: 'file', message: `At most ${maxRows} rows per upload.`, constraint: { maxItems: maxRows } });
  if (errors.length) throw new ValidationError(errors);
  return body.map((cells) => {
    const row: CsvRow = {};
    header.forEach((name, i) => {
      const v = cells[i] ?? '';
      if (v !== '') row[name] = v;
    });
    return row;
  });
}

/** The customer create body of one row; empty cells are absent fields. */
export function customerBodyOf(row: CsvRow): Record<string, unknown> {
  const uma = row.umaAddress && !row.umaAddress.startsWith('$') ? `$${row.umaAddress}` : row.umaAddress;
  const address =
    row.addressLine1 || row.city || row.postalCode || row.country
      ? { line1: row.addressLine1, ...(row.addressLine2 ? { line2: row.addressLine2 } : {}), city: row.city, state: row.state, postalCode: row.postalCode, country: row.country }
      : undefined;
  const body: Record<string, unknown> = {
    customerType: row.customerType,
    platformCustomerId: row.platformCustomerId,
    umaAddress: uma,
    email: row.email,
    phoneNumber: row.phoneNumber,
    currencies: row.currencies ? row.currencies.split(/[;|]/).map((c) => c.trim()).filter(Boolean) : undefined,
    address: address ? Object.fromEntries(Object.entries(address).filter(([, v]) => v !== undefined)) : undefined,
  };
  if (row.customerType === 'BUSINESS') {
    body.businessInfo = Object.fromEntries(
      Object.entries({
        legalName: row.businessLegalName,
        registrationNumber: row.businessRegistrationNumber,
        taxId: row.businessTaxId,
        incorporatedOn: row.businessIncorporatedOn,
        country: row.country,
      }).filter(([, v]) => v !== undefined),
    );
  } else {
    Object.assign(body, { fullName: row.fullName, birthDate: row.birthDate, nationality: row.nationality });
  }
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/** The row's id in errors: its platformCustomerId, else its line number (header is line 1). */
export const correlationIdOf = (row: CsvRow, index: number) => row.platformCustomerId || `row ${index + 2}`;
