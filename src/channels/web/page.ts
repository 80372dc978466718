/**
 * The web chat page: one self-contained HTML document (inline CSS and JavaScript, no external
 * assets, no framework), served with a Content-Security-Policy that allows exactly its own inline
 * script and style (by hash) and requests to its own origin.
 */
import { createHash } from 'node:crypto';
import { approvalCardScript } from './page-approval-script.ts';
import { pageScript } from './page-script.ts';
import { pageStyle } from './page-style.ts';
import { turnStateScript } from './page-turn-script.ts';

/** The page and the headers it must be served with. */
export interface WebPage {
  html: string;
  headers: Record<string, string>;
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * Builds the page. `apiBase` is the prefix of the `/web/...` endpoints (`''` when mounted at the
 * root); with `login`, the page has a button to log out (`POST <apiBase>/web/logout`).
 */
export function renderWebPage(apiBase: string, options: { login?: boolean } = {}): WebPage {
  const login = options.login ?? false;
  // The main script last: it starts the page once the others' functions and constants exist.
  const script = `'use strict';\n(() => {\n${approvalCardScript}\n${turnStateScript}\n${pageScript}\n})();\n`;
  const style = pageStyle;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>operator</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
<body>
<header><h1>operator</h1><span class="header-end"><span id="status" class="status" data-state="connecting" role="status">connecting…</span>${login ? '<button id="logout" class="logout" type="button">Log out</button>' : ''}</span></header>
<main id="log" class="log" role="log" aria-live="polite" aria-label="Conversation">
<p id="empty" class="empty">Say hello. Replies appear here as they are written.</p>
</main>
<div id="typing" class="typing" hidden><span class="dots" aria-hidden="true"><i></i><i></i><i></i></span>operator is typing…</div>
<form id="composer" class="composer" autocomplete="off">
<textarea id="input" rows="1" placeholder="Message operator" aria-label="Message" aria-describedby="hint"></textarea>
<button id="stop" class="stop" type="button" title="Stop the answer being written, as /stop does" hidden>Stop</button>
<button type="submit">Send</button>
<p id="hint" class="hint">Enter sends, Shift+Enter starts a new line</p>
</form>
<script type="application/json" id="operator-config">${scriptJson({ base: apiBase, ...(login ? { login } : {}) })}</script>
<script>${script}</script>
</body>
</html>
`;
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': policy,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  };
}
