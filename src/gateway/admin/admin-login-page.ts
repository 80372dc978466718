/**
 * The console's login page: a form asking for the admin token, and a small script for the link
 * `operator admin url` prints (`/admin/login#token=...`): the token in the fragment never reaches
 * a server log or a `Referer`; the script takes it out of the address bar and logs in with it.
 * Served with a Content-Security-Policy that allows its own inline style and script (by hash) and
 * requests to this server, nothing else.
 */
import { createHash } from 'node:crypto';
import { adminStyle } from './admin-style.ts';
import { escapeHtml } from '../../core/escape-html.ts';

/** Runs before the form is used: a token in the fragment logs in at once. No backticks, no `${`. */
const loginScript = String.raw`(() => {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return;
  history.replaceState(null, '', location.pathname);
  const problem = document.getElementById('problem');
  fetch('/admin/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: decodeURIComponent(match[1]) }), credentials: 'same-origin' })
    .then((response) => {
      if (response.ok) return location.replace('/admin');
      return response.json().then((body) => { problem.textContent = body.error || 'The link did not log you in.'; problem.hidden = false; });
    })
    .catch(() => { problem.textContent = 'The gateway did not answer.'; problem.hidden = false; });
})();`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The headers the login page is served with. */
export const adminLoginHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': [
    "default-src 'none'",
    `style-src ${sha256(adminStyle)}`,
    `script-src ${sha256(loginScript)}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it a browser sends `Origin: null` with the form, which the origin check refuses.
  'referrer-policy': 'same-origin',
});


/** The login page's HTML; `problem` (a wrong token, too many attempts) is shown above the field. */
export function renderAdminLogin(problem?: string): string {
  const shown = problem === undefined ? '' : escapeHtml(problem);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>operator admin: log in</title>
<link rel="icon" href="data:,">
<style>${adminStyle}</style>
</head>
<body>
<header><h1>operator admin</h1></header>
<main class="login">
<form method="post" action="/admin/login">
<h2>Log in to the admin console</h2>
<p>The console asks for the admin token. On the gateway's machine, <code>operator admin url</code> prints a link that logs you in; the token is the file <code>admin-token</code> in the gateway's home folder, or the variable <code>OPERATOR_ADMIN_TOKEN</code>.</p>
<p id="problem" class="error" role="alert"${shown === '' ? ' hidden' : ''}>${shown}</p>
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Log in</button>
</form>
</main>
<script>${loginScript}</script>
</body>
</html>
`;
}
