import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../../platform/errors.js';

function isPublicAddress(address: string): boolean {
  try {
    const parsed = ipaddr.process(address);
    return parsed.range() === 'unicast';
  } catch {
    return false;
  }
}

/**
 * Webhook URLs must be http(s). Outside sandbox, hosts that resolve to loopback, private, link-local
 * or otherwise non-public addresses are refused so a platform cannot aim the worker at our own
 * network (decision A7).
 */
export async function assertWebhookUrl(raw: string, allowPrivate: boolean, field = 'webhookEndpoint'): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError([{ field, constraint: { format: 'uri' }, message: 'Must be an absolute http(s) URL.' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ValidationError([{ field, constraint: { format: 'uri' }, message: 'Must use http or https.' }]);
  }
  if (url.username || url.password) {
    throw new ValidationError([{ field, message: 'Must not embed credentials.' }]);
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new ValidationError([{ field, message: 'Must resolve to a public address.' }]);
  }
}
