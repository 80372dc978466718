/** The Worker's entry: the hono app, and the Durable Object class it routes conversations to. */
import { Hono } from 'hono';
import { telegramWebhook } from './telegram-webhook.ts';
import type { WorkerEnv } from './worker-env.ts';

export { AccessObject } from './access-object.ts';
export { ConversationObject } from './conversation-object.ts';
export type { WorkerEnv } from './worker-env.ts';

const app = new Hono<{ Bindings: WorkerEnv }>();
app.get('/healthz', (context) => context.json({ status: 'ok', runtime: 'workers' }));
app.post('/webhooks/telegram', (context) => telegramWebhook(context.req.raw, context.env));

export default app;
