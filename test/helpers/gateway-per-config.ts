/**
 * One gateway process for the tests of a file that start it with the same operator.json: the
 * next test with that configuration gets the running one (each test in a conversation of its own),
 * another configuration stops it and starts a new one. After a failed test the next one starts
 * afresh, since the failed one may have left turns running.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFailed } from 'vitest';
import { startGateway, type StartedGateway } from './gateway-process.ts';

/** Where and how the gateways are started. */
export interface GatewayPerConfigOptions {
  /** OPERATOR_HOME (operator.json is written there). */
  home: string;
  /** The process's environment, read at each start. */
  env(): Record<string, string>;
  /** How long a start may take. */
  timeoutMs: number;
}

/** Starts gateways as {@link GatewayPerConfigOptions} say, reusing one per configuration. */
export class GatewayPerConfig {
  readonly #options: GatewayPerConfigOptions;
  #gateway: StartedGateway | undefined;
  /** The operator.json the running gateway was started with. */
  #config: string | undefined;

  constructor(options: GatewayPerConfigOptions) {
    this.#options = options;
  }

  /** A gateway with `config` (call it inside a test). */
  async start(config: Record<string, unknown>): Promise<StartedGateway> {
    onTestFailed(() => void (this.#config = undefined));
    const json = JSON.stringify(config);
    if (this.#gateway && this.#config === json) return this.#gateway;
    await this.stop();
    writeFileSync(join(this.#options.home, 'operator.json'), json);
    this.#gateway = await startGateway({ home: this.#options.home, env: this.#options.env() }, this.#options.timeoutMs);
    this.#config = json;
    return this.#gateway;
  }

  /** Stops the running gateway, if any; the next {@link start} starts a new one. */
  async stop(): Promise<void> {
    const gateway = this.#gateway;
    this.#gateway = undefined;
    this.#config = undefined;
    await gateway?.stop();
  }
}
