/** The Worker's entry: the hono app, and the Durable Object class it routes conversations to. */
import { Hono } from 'hono';
import type { ConversationObject } from './conversation-object.ts';

export { ConversationObject } from './conversation-object.ts';

/** The bindings and variables the Worker reads. */
export interface WorkerEnv {
  CONVERSATIONS: DurableObjectNamespace<ConversationObject>;
  TELEGRAM_WEBHOOK_SECRET?: string;
}

const app = new Hono<{ Bindings: WorkerEnv }>();
app.get('/healthz', (context) => context.json({ status: 'ok', runtime: 'workers' }));

export default app;
