/**
 * Who may talk to the bot, on Workers: one Durable Object for the whole bot, holding the pairing
 * book (codes, approved people and groups, refusals, the owner) through the gateway's own access
 * policy, `groupPolicy` included. A conversation's object asks it about each message before the
 * message reaches the agent; the webhooks tell it when the bot is added to a group. It also counts
 * the web chat login's failed attempts per client, for every isolate at once.
 */
import { DurableObject } from 'cloudflare:workers';
import type { GroupJoin } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import { createAccessPolicy, groupLabel, groupNoticeText, PairingError, type AccessDecision, type AccessPolicy, type ApprovedGroup, type GroupJoinOutcome, type PairedPerson } from '../gateway/access/index.ts';
import { groupNoticeKey } from '../gateway/access/pairing-keys.ts';
import type { PairingNotice } from '../gateway/access/pairing-notice.ts';
import { LoginRateLimiter, type LoginFailures, type LoginOutcome } from '../gateway/http/login-rate-limiter.ts';
import { objectStore } from './object-store.ts';
import { replyChannelFor } from './reply-channels.ts';
import { fromWireMessage, type WireMessage } from './wire-message.ts';
import { workerConfig } from './worker-config.ts';
import type { WorkerEnv } from './worker-env.ts';

/** The name of the one access object. */
export const accessObjectName = 'access';

/** Where the access object keeps a client's failed web logins: this, then the client's key. */
export const loginFailuresPrefix = 'web-login-failures:';

/** The Durable Object class that decides who may talk to the bot. */
export class AccessObject extends DurableObject<WorkerEnv> {
  #policy: AccessPolicy | undefined;
  #logins: LoginRateLimiter | undefined;

  get #access(): AccessPolicy {
    this.#policy ??= createAccessPolicy(workerConfig(this.env).config, objectStore(this.ctx.storage));
    return this.#policy;
  }

  /** Whether `message` may reach the agent, whether its sender is an admin, and what to tell a stranger. */
  async check(message: WireMessage): Promise<AccessDecision> {
    return this.#access.check(fromWireMessage(message));
  }

  /**
   * Approves a pairing code (an admin's `/pair CODE`): the person or group approved, or why not (a
   * malformed, unknown or expired code), said plainly (an error's class does not cross RPC). A
   * group is told at once, where its code was given.
   */
  async approve(code: string): Promise<{ person: PairedPerson } | { group: ApprovedGroup } | { error: string }> {
    let approved;
    try {
      approved = await this.#access.approvePairing(code);
    } catch (error) {
      if (error instanceof PairingError) return { error: error.message };
      throw error;
    }
    if (!('group' in approved)) return { person: approved };
    await this.#tellGroup(approved);
    return { group: approved };
  }

  /**
   * The bot was added to a group (a webhook saw it): approved when an admin added it; otherwise
   * the group's pairing code, for the webhook to send there (under `groupPolicy: approval`).
   */
  async groupJoined(join: Omit<GroupJoin, 'raw'>): Promise<GroupJoinOutcome> {
    return this.#access.groupJoined({ ...join, raw: undefined });
  }

  /** Sends the approval notice the book left for `approved`'s group (best effort: logged when it fails). */
  async #tellGroup(approved: ApprovedGroup): Promise<void> {
    const store = objectStore(this.ctx.storage);
    const key = groupNoticeKey(approved.group);
    const notice = await store.get<PairingNotice>(key);
    if (!notice) return;
    await store.delete(key);
    const adapter = replyChannelFor(notice.address.platform, this.env);
    try {
      await adapter?.send(notice.address, { text: groupNoticeText });
    } catch (error) {
      console.error(`pairing: could not tell ${groupLabel(approved.group)} it was approved: ${errorMessage(error)}`);
    }
  }

  /**
   * One web chat login attempt from `client` (its address key), with a right or a wrong token:
   * the gateway's limiter decides it (see `LoginRateLimiter.attempt`). The object runs one call at
   * a time and this one does not wait, so attempts sent in parallel are counted one by one.
   */
  loginAttempt(client: string, right: boolean): LoginOutcome {
    return this.#loginLimiter.attempt(client, right);
  }

  /**
   * The limiter, read back from storage when the object wakes, each change written through (the
   * synchronous storage of a SQLite-backed object): an eviction forgets nothing, and storage holds
   * no more clients than the limiter remembers.
   */
  get #loginLimiter(): LoginRateLimiter {
    if (this.#logins !== undefined) return this.#logins;
    const storage = this.ctx.storage.kv;
    const kept = [...storage.list<LoginFailures>({ prefix: loginFailuresPrefix })].map(([key, failures]) => [key.slice(loginFailuresPrefix.length), failures] as const);
    // Storage lists by key; the limiter wants least recently failed first, which the first failure approximates.
    kept.sort(([, a], [, b]) => a.since - b.since);
    this.#logins = new LoginRateLimiter({
      failures: kept,
      onChange: (client, failures) => {
        if (failures === undefined) storage.delete(loginFailuresPrefix + client);
        else storage.put(loginFailuresPrefix + client, failures);
      },
    });
    return this.#logins;
  }
}

/** The one access object of the Worker. */
export function accessObject(env: WorkerEnv): DurableObjectStub<AccessObject> {
  return env.ACCESS.get(env.ACCESS.idFromName(accessObjectName));
}
