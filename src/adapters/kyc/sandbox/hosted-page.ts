/** HTML of the sandbox provider's hosted verification page: one small form, no scripts, no external assets. */

export interface HostedField {
  name: string;
  label: string;
  type?: 'text' | 'date';
  value?: string;
  readonly?: boolean;
  placeholder?: string;
}

export interface HostedFormModel {
  title: string;
  intro: string;
  fields: HostedField[];
  errors: Record<string, string>;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
label{display:block;margin-top:.8rem;font-weight:600}input[type=text],input[type=date]{width:100%;padding:.4rem;box-sizing:border-box}
.err{color:#b00020;font-size:.9rem}button{margin-top:1.2rem;padding:.5rem 1.2rem}.note{color:#555;font-size:.9rem}`;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function renderHostedForm(m: HostedFormModel): string {
  const rows = m.fields
    .map((f) => {
      const err = m.errors[f.name] ? `<div class="err" id="${f.name}-error">${escapeHtml(m.errors[f.name]!)}</div>` : '';
      return `<label for="${f.name}">${escapeHtml(f.label)}</label><input type="${f.type ?? 'text'}" id="${f.name}" name="${f.name}" value="${escapeHtml(f.value ?? '')}"${f.readonly ? ' readonly' : ''}${f.placeholder ? ` placeholder="${escapeHtml(f.placeholder)}"` : ''}>${err}`;
    })
    .join('\n');
  const consentErr = m.errors.consent ? `<div class="err" id="consent-error">${escapeHtml(m.errors.consent)}</div>` : '';
  const form = `<h1>${escapeHtml(m.title)}</h1><p class="note">${escapeHtml(m.intro)}</p>
<form method="post" id="kyc-form">${rows}
<label><input type="checkbox" id="consent" name="consent" value="yes"> I confirm these details are true.</label>${consentErr}
<button type="submit" id="submit">Submit for verification</button></form>
<p class="note">Sandbox verification provider: no document is checked here.</p>`;
  return page(m.title, form);
}

export function renderMessage(title: string, message: string): string {
  return page(title, `<h1 id="title">${escapeHtml(title)}</h1><p id="message">${escapeHtml(message)}</p>`);
}
