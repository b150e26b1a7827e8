import type { LoggerOptions } from 'pino';

/**
 * Secrets and PII never reach the logs. Request bodies are not logged at all; these paths cover
 * headers and any object a handler or job logs on purpose (spec: identifier/SSN, account numbers,
 * IBANs, phone numbers, birth dates, documents).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["svc-wallet-signature"]',
  'headers.authorization',
  '*.password',
  '*.secret',
  '*.clientSecret',
  '*.secretHash',
  '*.privateKeyPem',
  '*.accessToken',
  '*.identifier',
  '*.ssn',
  '*.accountNumber',
  '*.iban',
  '*.clabeNumber',
  '*.routingNumber',
  '*.sortCode',
  '*.pixKey',
  '*.vpa',
  '*.phoneNumber',
  '*.birthDate',
  '*.taxId',
  '*.documentNumber',
  '*.file',
  '*.*.identifier',
  '*.*.accountNumber',
  '*.*.iban',
  '*.*.phoneNumber',
  '*.*.birthDate',
  '*.*.taxId',
];

export function loggerOptions(level: string, name: string): LoggerOptions {
  return {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    serializers: {
      req: (req: any) => ({ method: req.method, url: req.url, headers: req.headers }),
      res: (res: any) => ({ statusCode: res.statusCode }),
    },
  };
}
