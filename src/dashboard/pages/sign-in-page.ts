import { html, type SafeHtml } from '../html.js';
import { layout, notice, type Viewer } from './layout.js';

/** The only form a visitor without a session sees. The secret goes in a POST body, never a URL. */
export function signInPage(viewer: Viewer, error?: string): SafeHtml {
  return layout(
    'Sign in',
    viewer,
    html`<h1>Sign in</h1>
<p>Use your API key to see your plan, credits and requests, or the admin token to manage every key.</p>
${notice('error', error)}
<form method="post" action="/dashboard/sign-in" class="card">
  <label for="secret">API key or admin token</label>
  <input id="secret" name="secret" type="password" autocomplete="current-password" required maxlength="256" spellcheck="false">
  <button type="submit">Sign in</button>
</form>`,
  );
}
