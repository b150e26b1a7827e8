import type { LivenessAdapter } from '../port.js';

/**
 * Sandbox liveness: the link opens a page of this server (GET {base}/sandbox/liveness/{token}) with two
 * buttons, "pass" and "fail"; the choice is POSTed back and applied asynchronously, like a provider's
 * callback. Tests POST the outcome directly.
 */
export function sandboxLiveness(publicBaseUrl: string, apiBasePath: string): LivenessAdapter {
  const base = `${publicBaseUrl.replace(/\/+$/, '')}${apiBasePath}`;
  return {
    id: 'sandbox',
    async startSession({ token }, callOpts) {
      callOpts?.signal?.throwIfAborted();
      return { verificationLink: `${base}/sandbox/liveness/${encodeURIComponent(token)}` };
    },
  };
}

/** The page behind the link. No external assets; the token is already URL-safe (base64url). */
export function sandboxLivenessPage(token: string, expiresAt: Date): string {
  const safe = token.replace(/[^A-Za-z0-9_-]/g, '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox liveness check</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto;">
<h1>Sandbox liveness check</h1>
<p>This page stands in for a liveness provider. Choose the outcome; it is applied within seconds.
The session expires at ${expiresAt.toISOString()}.</p>
<button id="pass">Pass</button> <button id="fail">Fail</button>
<p id="out" role="status"></p>
<script>
for (const [id, outcome] of [['pass', 'PASSED'], ['fail', 'FAILED']]) {
  document.getElementById(id).onclick = async () => {
    const r = await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcome }) });
    document.getElementById('out').textContent = r.ok ? 'Recorded: ' + outcome : 'Refused (' + r.status + ')';
  };
}
</script>
</body></html>`;
}
