/**
 * Who may talk to the bot, on Workers: one Durable Object for the whole bot, holding the pairing
 * book (codes, approved people, refusals, the owner) through the gateway's own access policy. A
 * conversation's object asks it about each message before the message reaches the agent.
 */
import { DurableObject } from 'cloudflare:workers';
import { createAccessPolicy, PairingError, type AccessDecision, type AccessPolicy, type PairedPerson } from '../gateway/access/index.ts';
import { objectStore } from './object-store.ts';
import { fromWireMessage, type WireMessage } from './wire-message.ts';
import { workerConfig } from './worker-config.ts';
import type { WorkerEnv } from './worker-env.ts';

/** The name of the one access object. */
export const accessObjectName = 'access';

/** The Durable Object class that decides who may talk to the bot. */
export class AccessObject extends DurableObject<WorkerEnv> {
  #policy: AccessPolicy | undefined;

  get #access(): AccessPolicy {
    this.#policy ??= createAccessPolicy(workerConfig(this.env).config, objectStore(this.ctx.storage));
    return this.#policy;
  }

  /** Whether `message` may reach the agent, whether its sender is an admin, and what to tell a stranger. */
  async check(message: WireMessage): Promise<AccessDecision> {
    return this.#access.check(fromWireMessage(message));
  }

  /**
   * Approves a pairing code (an admin's `/pair CODE`): the person approved, or why not (a
   * malformed, unknown or expired code), said plainly (an error's class does not cross RPC).
   */
  async approve(code: string): Promise<{ person: PairedPerson } | { error: string }> {
    try {
      return { person: await this.#access.approvePairing(code) };
    } catch (error) {
      if (error instanceof PairingError) return { error: error.message };
      throw error;
    }
  }
}

/** The one access object of the Worker. */
export function accessObject(env: WorkerEnv): DurableObjectStub<AccessObject> {
  return env.ACCESS.get(env.ACCESS.idFromName(accessObjectName));
}
