/** The Worker's entry: the hono app, and the Durable Object classes (conversations, access, spend). */
import { Hono } from 'hono';
import { discordInteractions } from './discord-interactions.ts';
import { slackEvents } from './slack-events.ts';
import { telegramWebhook } from './telegram-webhook.ts';
import { webChat } from './web-chat.ts';
import type { WorkerEnv } from './worker-env.ts';

export { AccessObject } from './access-object.ts';
export { ConversationObject } from './conversation-object.ts';
export { SpendObject } from './spend-object.ts';
export type { WorkerEnv } from './worker-env.ts';

const app = new Hono<{ Bindings: WorkerEnv }>();
app.get('/healthz', (context) => context.json({ status: 'ok', runtime: 'workers' }));
app.post('/webhooks/telegram', (context) => telegramWebhook(context.req.raw, context.env));
app.post('/webhooks/slack', (context) => slackEvents(context.req.raw, context.env));
app.post('/webhooks/discord', (context) => discordInteractions(context.req.raw, context.env));
// The web chat, behind its login (off without OPERATOR_WEB_TOKEN): `/` and `/web/*` only.
app.route('/', webChat);

export default app;
