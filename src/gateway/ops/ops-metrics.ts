/**
 * The gateway's Prometheus metrics, counted from the events of `ops-events.ts` with prom-client:
 * turns and their latency, model tokens and cost by provider and model, deliveries, queue depth,
 * scheduler lateness, platforms' 429s and reconnects, exceptions stopped at a boundary, spending
 * caps' refusals and spend by kind of cap, plus the process's own (memory, CPU, event
 * loop lag). prom-client loads on first use: the first scrape of /metrics, or once a thousand
 * events wait (it costs about 50 ms of CPU, which a gateway nobody scrapes need not pay). Events
 * before that wait in a list and are counted when it has loaded; the event loop's lag is measured
 * from then on.
 */
import type * as PromClientModule from 'prom-client';
import type { OpsListener, OpsRecord } from './ops-events.ts';

type PromClient = typeof PromClientModule;

/** Numbers read when metrics are asked for rather than counted from events. */
export interface LiveGauges {
  /** Turns running now. */
  running(): number;
  /** Turns queued: waiting for a slot or behind their conversation's turn. */
  queued(): number;
  /** Conversations in memory. */
  conversations(): number;
}

/** Events waiting that make prom-client load without a scrape. */
const loadAt = 1_000;
/** Events kept before prom-client has loaded (it loads at {@link loadAt}); past this a burst is counted from its first ones only. */
const backlogLimit = 10_000;

/** Metrics of one gateway. */
export class OpsMetrics {
  readonly #gauges: LiveGauges;
  #backlog: OpsRecord[] | undefined = [];
  #metrics: Metrics | undefined;
  #loading: Promise<void> | undefined;

  constructor(gauges: LiveGauges) {
    this.#gauges = gauges;
  }

  /** Counts an event (subscribe it to `OpsEvents`). */
  readonly listener: OpsListener = (record) => {
    if (this.#metrics) return this.#metrics.count(record);
    if (this.#backlog && this.#backlog.length < backlogLimit) this.#backlog.push(record);
    // A failed load shows at the next scrape (render), which answers with its error.
    if (this.#backlog?.length === loadAt) this.load().catch(() => undefined);
  };

  /** Whether prom-client has loaded and counts events as they come. */
  get loaded(): boolean {
    return this.#metrics !== undefined;
  }

  /** Loads prom-client and counts what waited; later calls share the first. */
  load(): Promise<void> {
    this.#loading ??= import('prom-client').then((client) => {
      const metrics = new Metrics(client, this.#gauges);
      for (const record of this.#backlog ?? []) metrics.count(record);
      this.#backlog = undefined;
      this.#metrics = metrics;
    });
    return this.#loading;
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    await this.load();
    return this.#metrics!.render();
  }
}

/**
 * The kinds of spending cap (`budget-gate.ts`'s `SpendScopeKind`), the only values the `scope`
 * label takes: anything else counts as `other`, so a label never names a conversation or a person.
 */
const spendScopes: ReadonlySet<string> = new Set(['gateway', 'conversation', 'person', 'job', 'pipeline']);

/** Seconds buckets for turn latency: a command's answer to a long agentic turn. */
const turnBuckets = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];
/** Seconds buckets for how late a scheduled job fired. */
const latenessBuckets = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];

/** The registered metrics. */
class Metrics {
  readonly #registry;
  readonly #turns;
  readonly #turnSeconds;
  readonly #tokens;
  readonly #cost;
  readonly #messages;
  readonly #deliveries;
  readonly #deliveryRetries;
  readonly #deliveryFailures;
  readonly #lateness;
  readonly #jobs;
  readonly #rateLimited;
  readonly #disconnects;
  readonly #reconnects;
  readonly #storeFailures;
  readonly #approvals;
  readonly #outsideErrors;
  readonly #budgetRefusals;
  readonly #spend;

  constructor(client: PromClient, gauges: LiveGauges) {
    const registry = new client.Registry();
    this.#registry = registry;
    client.collectDefaultMetrics({ register: registry, prefix: 'operator_' });
    const registers = [registry];
    const counter = (name: string, help: string, labelNames: string[]) => new client.Counter({ name, help, labelNames, registers });
    this.#turns = counter('operator_turns_total', 'Agent turns finished, by platform and how they ended.', ['platform', 'status']);
    this.#turnSeconds = new client.Histogram({ name: 'operator_turn_duration_seconds', help: 'How long turns took, from start to the recorded reply.', labelNames: ['platform'], buckets: turnBuckets, registers });
    this.#tokens = counter('operator_model_tokens_total', 'Model tokens, by provider, model, token type and whether a turn or a background review spent them.', ['provider', 'model', 'type', 'source']);
    this.#cost = counter('operator_model_cost_usd_total', 'Model cost in US dollars, by provider, model and source.', ['provider', 'model', 'source']);
    this.#messages = counter('operator_messages_accepted_total', 'Messages taken in (recorded and to be answered), by platform.', ['platform']);
    this.#deliveries = counter('operator_deliveries_total', 'Replies delivered, by platform.', ['platform']);
    this.#deliveryRetries = counter('operator_delivery_retries_total', 'Delivery attempts that failed and were tried again, by platform.', ['platform']);
    this.#deliveryFailures = counter('operator_deliveries_failed_total', 'Replies not delivered after every attempt (kept in the ledger), by platform.', ['platform']);
    this.#lateness = new client.Histogram({ name: 'operator_scheduler_lateness_seconds', help: 'How long after its time a scheduled job fired.', buckets: latenessBuckets, registers });
    this.#jobs = counter('operator_jobs_total', 'Scheduled job runs, by outcome.', ['status']);
    this.#rateLimited = counter('operator_platform_rate_limited_total', 'Rate limit answers (429) from a platform.', ['platform']);
    this.#disconnects = counter('operator_platform_disconnects_total', 'Connections to a platform lost.', ['platform']);
    this.#reconnects = counter('operator_platform_reconnects_total', 'Connections to a platform made again.', ['platform']);
    this.#storeFailures = counter('operator_store_failures_total', 'Writes or reads the store failed.', []);
    this.#approvals = counter('operator_approvals_total', 'Tool calls put to a person for approval, by answer.', ['answer']);
    this.#outsideErrors = counter('operator_outside_errors_total', 'Exceptions thrown by code operator does not control (a platform SDK, an extension, a tool), stopped at a boundary, by source and event.', ['source', 'event']);
    this.#budgetRefusals = counter('operator_budget_refusals_total', 'Model calls refused at a spending cap, by the kind of cap (gateway, conversation, person, job, pipeline).', ['scope']);
    this.#spend = counter('operator_spend_usd_total', 'Model cost in US dollars counted against spending caps, by kind of cap: a call counts for each kind it counted for, so scope="gateway" is all of it.', ['scope']);
    const gauge = (name: string, help: string, read: () => number) =>
      new client.Gauge({ name, help, registers, collect() { this.set(read()); } });
    gauge('operator_turns_running', 'Turns running now.', () => gauges.running());
    gauge('operator_queue_depth', 'Turns waiting: for a slot, or behind their conversation\'s running turn.', () => gauges.queued());
    gauge('operator_conversations_live', 'Conversations in memory.', () => gauges.conversations());
  }

  count(record: OpsRecord): void {
    const platform = record.platform ?? '';
    switch (record.type) {
      case 'message.accepted':
        return this.#messages.inc({ platform });
      case 'turn.end':
        this.#turns.inc({ platform, status: record.status });
        return this.#turnSeconds.observe({ platform }, record.durationMs / 1000);
      case 'model.usage': {
        const { provider, model, kind: source, tokens } = record;
        for (const [type, value] of [['input', tokens.input], ['output', tokens.output], ['cache_read', tokens.cacheRead], ['cache_write', tokens.cacheWrite]] as const) {
          if (value > 0) this.#tokens.inc({ provider, model, type, source }, value);
        }
        if (record.costUsd > 0) this.#cost.inc({ provider, model, source }, record.costUsd);
        return;
      }
      case 'reply.delivered':
        return this.#deliveries.inc({ platform });
      case 'reply.retried':
        return this.#deliveryRetries.inc({ platform });
      case 'reply.failed':
        return this.#deliveryFailures.inc({ platform });
      case 'job.fired':
        this.#jobs.inc({ status: record.status });
        return this.#lateness.observe(Math.max(0, record.latenessMs) / 1000);
      case 'platform.rate_limited':
        return this.#rateLimited.inc({ platform });
      case 'platform.disconnected':
        return this.#disconnects.inc({ platform });
      case 'platform.reconnected':
        return this.#reconnects.inc({ platform });
      case 'store.failed':
        return this.#storeFailures.inc();
      case 'approval.answered':
        return this.#approvals.inc({ answer: record.approved ? 'approved' : 'denied' });
      case 'outside.error':
        return this.#outsideErrors.inc({ source: record.source, event: record.handling });
      case 'budget.refused':
        return this.#budgetRefusals.inc({ scope: scopeLabel(record.scope) });
      case 'budget.spent':
        if (record.costUsd > 0) for (const scope of new Set(record.scopes.map(scopeLabel))) this.#spend.inc({ scope }, record.costUsd);
        return;
      default:
        return;
    }
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.#registry.contentType, body: await this.#registry.metrics() };
  }
}

/** A spending cap's kind as a label: one of {@link spendScopes}, else `other`. */
function scopeLabel(scope: string): string {
  return spendScopes.has(scope) ? scope : 'other';
}
