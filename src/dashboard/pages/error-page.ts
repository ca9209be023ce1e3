import { html, type SafeHtml } from '../html.js';
import { layout, notice, type Viewer } from './layout.js';

export function errorPage(viewer: Viewer, status: number, text: string): SafeHtml {
  return layout(
    `Error ${status}`,
    viewer,
    html`<h1>${status === 404 ? 'Not found' : status === 429 ? 'Too many attempts' : status === 403 ? 'Not allowed' : 'Something went wrong'}</h1>
${notice('error', text)}
<p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}
