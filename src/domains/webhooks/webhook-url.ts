import { lookup } from 'node:dns/promises';
import { lookup as lookupCb, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { ValidationError } from '../../platform/errors.js';

export function isPublicAddress(address: string): boolean {
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

/** The code recorded on a delivery attempt refused because the host resolved to a non-public address. */
export const ADDRESS_NOT_PUBLIC = 'WEBHOOK_ADDRESS_NOT_PUBLIC';

class AddressNotPublicError extends Error {
  readonly code = ADDRESS_NOT_PUBLIC;
}

/**
 * DNS lookup for outgoing webhook connections: resolves, and refuses unless every address is public.
 * undici connects to the very address returned here, so what was checked is what is dialled —
 * a DNS answer that changes after the URL was saved (rebinding) cannot reach the internal network.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookupCb(hostname, { ...(options as LookupOptions), all: true }, (err, addresses) => {
    const cb = callback as (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
    if (err) return cb(err, []);
    const list = addresses as LookupAddress[];
    const refused = list.find((a) => !isPublicAddress(a.address));
    if (list.length === 0 || refused) return cb(new AddressNotPublicError(`${hostname} resolves to a non-public address${refused ? ` (${refused.address})` : ''}`), []);
    if ((options as LookupOptions).all) return cb(null, list);
    return cb(null, list[0]!.address, list[0]!.family);
  });
};

let publicOnly: Dispatcher | undefined;

/**
 * The HTTP dispatcher of webhook deliveries. With private addresses allowed (sandbox) it is undici's
 * default; otherwise every connection's address is checked when it is made: literal IPs before
 * dialling, host names in the lookup above.
 */
export function webhookDispatcher(allowPrivate: boolean): Dispatcher | undefined {
  if (allowPrivate) return undefined;
  publicOnly ??= (() => {
    const connect = buildConnector({ lookup: publicOnlyLookup });
    return new Agent({
      connect: (opts, cb) => {
        const host = opts.hostname.replace(/^\[|\]$/g, '');
        if (isIP(host) && !isPublicAddress(host)) return cb(new AddressNotPublicError(`${host} is not a public address`), null);
        return connect(opts, cb);
      },
    });
  })();
  return publicOnly;
}
