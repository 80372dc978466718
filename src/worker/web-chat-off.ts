/**
 * The web chat's answer on a Worker without a valid login token: the chat is off. A Worker's URL
 * is public, and an open chat there would let anyone spend the model budget, so unlike the Node
 * gateway on this machine alone it never runs without a login. The answer says how to turn it on.
 */
import { escapeHtml } from '../core/escape-html.ts';
import { errorResponse } from '../channels/web/web-requests.ts';
import { webTokenVariable } from '../gateway/http/web-token.ts';

/** How to turn the web chat on, for the page and the API's errors alike. */
export const turnOnHint = `set its login token as a secret: npx wrangler secret put ${webTokenVariable} (at least 16 characters)`;

const headers = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The page has nothing but text: nothing else may load or run.
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

/**
 * The 404 of a web chat that is off: a short page for `GET /`, the web chat's JSON error for the
 * rest. `reason` says why (no token, or why the token given is not valid; never the value).
 */
export function webChatOff(request: Request, reason: string): Response {
  const { pathname } = new URL(request.url);
  if ((request.method === 'GET' || request.method === 'HEAD') && pathname === '/') {
    const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="robots" content="noindex"><title>operator: web chat off</title></head>
<body>
<h1>The web chat is off on this Worker</h1>
<p>${escapeHtml(reason)}</p>
<p>To turn it on, ${escapeHtml(turnOnHint)}; then open this page again and log in with that token.</p>
</body>
</html>
`;
    return new Response(request.method === 'HEAD' ? null : html, { status: 404, headers });
  }
  return errorResponse(404, `the web chat is off: ${reason}; to turn it on, ${turnOnHint}`);
}
