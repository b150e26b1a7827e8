import { isValidPhoneNumber } from 'libphonenumber-js/max';

/**
 * NANP numbers 555-0100 … 555-0199 are reserved for fiction; the spec's and README's examples use
 * them (+15555550123). They are accepted as valid, and can never reach a real subscriber.
 */
const FICTIONAL_NANP = /^\+1\d{3}55501\d{2}$/;

/**
 * A phone number in E.164 that libphonenumber (full metadata) says is a valid number of its country:
 * the number's length and its digit patterns for that country (not only "+ and up to 15 digits").
 */
export function isValidE164(value: string): boolean {
  if (!/^\+[1-9]\d{1,14}$/.test(value)) return false;
  return FICTIONAL_NANP.test(value) || isValidPhoneNumber(value);
}

export const PHONE_MESSAGE = 'Must be a valid international (E.164) number for its country, such as +15555550123.';
