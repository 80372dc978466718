/**
 * The admin console's page: one self-contained HTML document (inline CSS and JavaScript, no
 * external assets, no framework, no build step), served with a Content-Security-Policy that
 * allows exactly its own inline script and style (by hash) and requests to its own origin. The
 * pages are drawn in the browser from the JSON API; the session's CSRF token rides in the page.
 */
import { createHash } from 'node:crypto';
import { adminCoreScript } from './admin-script-core.ts';
import { adminSpendingScript } from './admin-script-spending.ts';
import { adminViewsScript } from './admin-script-views.ts';
import { adminStyle } from './admin-style.ts';

const script = `'use strict';\n(() => {\n${adminCoreScript}\n${adminSpendingScript}\n${adminViewsScript}\n})();\n`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The headers the console page is served with. */
export const adminPageHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(adminStyle)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
});

/** JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

const tabs: [page: string, label: string][] = [
  ['conversations', 'Conversations'],
  ['jobs', 'Jobs'],
  ['runs', 'Pipelines'],
  ['pairing', 'Pairing'],
  ['profiles', 'Profiles'],
  ['usage', 'Usage'],
  ['events', 'Live events'],
];

/**
 * The page for one session: `csrf` is the session's CSRF token (empty for a bearer request, which
 * needs none).
 */
export function renderAdminPage(csrf: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>operator admin</title>
<link rel="icon" href="data:,">
<style>${adminStyle}</style>
</head>
<body>
<header><h1>operator admin</h1><span class="header-end"><span id="live" class="status" data-state="connecting" role="status">connecting…</span><button id="logout" class="logout" type="button">Log out</button></span></header>
<nav id="tabs" class="tabs" aria-label="Console pages">${tabs.map(([page, label]) => `<a href="#${page}" data-page="${page}">${label}</a>`).join('')}</nav>
<main id="view" class="view" aria-live="polite"></main>
<script type="application/json" id="admin-config">${scriptJson({ csrf })}</script>
<script>${script}</script>
</body>
</html>
`;
}
