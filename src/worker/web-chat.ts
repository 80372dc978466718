/**
 * The local web chat, served by the Worker behind the Node gateway's login (`web-chat-gate.ts`):
 * `GET /` is the chat page, and every `/web/...` request goes to the Durable Object of its
 * browser's conversation (`web-chat-route.ts`), where its messages are answered and its event
 * stream is held. Mounted on the Worker's app with `app.route('/', webChat)`.
 */
import { Hono } from 'hono';
import { createWebChannel, type WebChannel } from '../channels/web/index.ts';
import { loginPath } from '../gateway/http/login-page.ts';
import { webChatGate } from './web-chat-gate.ts';
import { toConversation } from './web-chat-route.ts';
import type { WorkerEnv } from './worker-env.ts';

/**
 * A web chat channel used only for its page (with the logout button); made on the first request,
 * as random ids may not be made while the Worker's module is loaded.
 */
let pageChannel: WebChannel | undefined;

function servePage(request: Request): Promise<Response> | Response {
  pageChannel ??= createWebChannel({ login: true, log: (line) => console.error(line) });
  const page = pageChannel.routes().find((route) => route.method === 'GET' && route.path === '/');
  return page ? page.handler(request) : new Response('not found', { status: 404 });
}

/** The web chat's routes, each behind the gate (only `/` and `/web/...`: the webhooks keep their own checks). */
export const webChat = new Hono<{ Bindings: WorkerEnv }>();
webChat.use('/', webChatGate);
webChat.use('/web/*', webChatGate);
webChat.get('/', (context) => servePage(context.req.raw));
// Logged in already (the gate shows the login page otherwise): the chat is at `/`.
webChat.get(loginPath, (context) => context.redirect('/', 303));
webChat.all('/web/*', (context) => toConversation(context.req.raw, context.env));
