/** What the bench scripts (run.ts, growth.ts) share: one API call, waiting for a state, bounded concurrency. */

/** One API call to `base` (the API's URL with its base path) as `auth`; a non-2xx answer throws with its status and (the start of) its body. */
export async function apiCall(base: string, auth: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Polls `check` every `stepMs` until it gives a value; throws naming `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs: number, stepMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Bounded-concurrency map: `n` workers take the items in order. */
export async function pool<T>(items: T[], n: number, fn: (t: T, i: number) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) {
        const at = i++;
        await fn(items[at]!, at);
      }
    }),
  );
}
