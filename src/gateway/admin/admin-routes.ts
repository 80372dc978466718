/**
 * The admin console's place in the gateway's route table. This module is loaded at start and kept
 * small: it starts what must not miss an event (the usage ledger, the recent events), and the
 * console itself (pages, API, login) is imported on the first `/admin` request, so a gateway
 * nobody administers never loads it.
 */
import type { ChannelRoute, RouteConnection } from '../../channels/types.ts';
import type { Gateway } from '../gateway.ts';
import { RecentEvents } from './recent-events.ts';
import { UsageLedger } from './usage-ledger.ts';

/** What the console works on. */
export type AdminGateway = Pick<Gateway, 'runtime' | 'config' | 'ops' | 'scheduler' | 'known' | 'conversations' | 'access' | 'notifier' | 'adapters' | 'menus' | 'log' | 'grants' | 'queue' | 'spending'>;

/** Options of {@link adminRoutes}. */
export interface AdminRoutesOptions {
  gateway: AdminGateway;
  /** The admin token (see `admin-token.ts`): the only way in. */
  token: string;
  /** False while the gateway starts or stops: the console's data answers 503 then. Default: always ready. */
  ready?: () => boolean;
  /** Secrets besides the environment's that the console must never show (the web chat's token). */
  secrets?: readonly string[];
  now?: () => number;
}

/** What the lazily loaded console gets. */
export interface AdminConsoleParts extends AdminRoutesOptions {
  ledger: UsageLedger;
  recent: RecentEvents;
}

/** Answers one console request. */
export type AdminHandler = (request: Request, connection: RouteConnection | undefined) => Promise<Response>;

/**
 * The console's routes (`GET /admin`, `GET|POST /admin/*`), for `createGatewayApp`'s `routes`.
 * The usage ledger and the recent events start listening to `gateway.ops` at once.
 *
 * @example
 * const admin = adminRoutes({ gateway, token: (await loadAdminToken(env, home)).token, ready: () => state === 'ready' });
 * const app = createGatewayApp(adapters, health, [control, ...admin], edge);
 */
export function adminRoutes(options: AdminRoutesOptions): ChannelRoute[] {
  const { gateway } = options;
  const ledger = new UsageLedger({ store: gateway.runtime.store, log: (line) => gateway.log(line) });
  ledger.attach(gateway.ops);
  const recent = new RecentEvents();
  recent.attach(gateway.ops);
  let loading: Promise<AdminHandler> | undefined;
  const handler = async (request: Request, connection?: RouteConnection): Promise<Response> => {
    loading ??= import('./admin-console.ts').then(({ createAdminConsole }) => createAdminConsole({ ...options, ledger, recent }));
    // A failed import is tried again by the next request.
    loading.catch(() => (loading = undefined));
    return (await loading)(request, connection);
  };
  return [
    { method: 'GET', path: '/admin', handler },
    { method: 'GET', path: '/admin/*', handler },
    { method: 'POST', path: '/admin/*', handler },
  ];
}
