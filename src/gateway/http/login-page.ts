/**
 * The web chat's login page: a form asking for the token, in the chat page's style. No script and
 * no external resources; its Content-Security-Policy allows its own inline style (by hash) and
 * posting the form to this server, nothing else.
 */
import { createHash } from 'node:crypto';
import { pageStyle } from '../../channels/web/index.ts';
import { escapeHtml } from '../../core/escape-html.ts';

const loginStyle = `${pageStyle}
.login { flex: 1; display: flex; align-items: center; justify-content: center; padding: 18px; }
.login form { width: min(400px, 100%); background: var(--surface); border: 1px solid var(--border); border-radius: 16px; padding: 22px; display: flex; flex-direction: column; gap: 12px; }
.login h2 { margin: 0; font-size: 17px; font-weight: 600; }
.login p { margin: 0; color: var(--muted); font-size: 14px; }
.login code { font: 0.92em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 1px 4px; border-radius: 4px; }
.login .error { color: var(--danger); }
.login label { font-size: 13px; font-weight: 600; }
.login input { padding: 9px 12px; border-radius: 10px; border: 1px solid var(--border); background: var(--background); color: var(--text); font: inherit; }
.login input:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
.login button { padding: 9px 18px; border: 0; border-radius: 10px; background: var(--accent); color: var(--accent-text); font: inherit; font-weight: 600; cursor: pointer; }
`;

const policy = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(loginStyle, 'utf8').digest('base64')}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers the login page is served with. */
export const loginPageHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': policy,
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it a browser sends `Origin: null` with the form, which the origin check refuses.
  'referrer-policy': 'same-origin',
});

/** The path the login form posts to. */
export const loginPath = '/web/login';


/**
 * The login page's HTML; `problem` (a wrong token, too many attempts) is shown above the field.
 *
 * @example
 * new Response(renderLoginPage(), { status: 401, headers: loginPageHeaders });
 */
export function renderLoginPage(problem?: string): string {
  const alert = problem === undefined ? '' : `<p class="error" role="alert">${escapeHtml(problem)}</p>\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>operator: log in</title>
<link rel="icon" href="data:,">
<style>${loginStyle}</style>
</head>
<body>
<header><h1>operator</h1></header>
<main class="login">
<form method="post" action="${loginPath}">
<h2>Log in to the web chat</h2>
<p>This web chat asks for its login token. Whoever runs the gateway finds it where the start-up output says: the file <code>web-token</code> in the gateway's home folder, or the variable <code>OPERATOR_WEB_TOKEN</code>.</p>
${alert}<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Log in</button>
</form>
</main>
</body>
</html>
`;
}
