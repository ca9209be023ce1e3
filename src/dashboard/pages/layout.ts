import { html, type SafeHtml } from '../html.js';

export interface Viewer {
  /** 'admin', a user's key prefix, or nobody yet. */
  who: { role: 'admin' } | { role: 'key'; prefix: string | undefined } | undefined;
  /** The session's CSRF token, for every form that changes something. */
  csrf: string | undefined;
  /** This answer's CSP nonce (request-guard.ts): only elements carrying it load. */
  nonce: string;
}

/** The hidden field every changing form carries (checked by request-guard.ts). */
export const csrfField = (viewer: Viewer) => html`<input type="hidden" name="csrf" value="${viewer.csrf ?? ''}">`;

/** An error or a notice, announced to screen readers as it appears. */
export function notice(kind: 'error' | 'info', text: string | undefined): SafeHtml {
  if (!text) return html``;
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

/**
 * Every page: the stylesheet and scripts come from this server alone, named with the answer's
 * nonce (the CSP allows nothing else, inline code included); a skip link, landmarks and a heading per section for keyboard and
 * screen-reader users.
 */
export function layout(title: string, viewer: Viewer, main: SafeHtml, options: { charts?: boolean } = {}): SafeHtml {
  const who = viewer.who;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · scrapegate</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css" nonce="${viewer.nonce}">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/dashboard">scrapegate</a>
  ${
    who
      ? html`<nav aria-label="Session">
    <span class="who">${who.role === 'admin' ? 'Signed in as the operator' : who.prefix ? html`Signed in with key <code>${who.prefix}…</code>` : 'Signed in with a key'}</span>
    <form method="post" action="/dashboard/sign-out" class="inline">${csrfField(viewer)}<button type="submit">Sign out</button></form>
  </nav>`
      : ''
  }
</header>
<main id="main" tabindex="-1">
${main}
</main>
${options.charts ? html`<script src="/dashboard/assets/chart.umd.min.js" nonce="${viewer.nonce}"></script>
<script src="/dashboard/assets/dashboard.js" nonce="${viewer.nonce}"></script>` : ''}
</body>
</html>
`;
}
