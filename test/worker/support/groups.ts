/**
 * Set-up for Worker tests whose subject is not group approval but that talk in groups: a group an
 * admin approved, written through the pairing book into the access object's storage (what an
 * admin's `/pair CODE` does, without the code). Group approval itself on Workers is tested in
 * `group-approval.test.ts`.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { PairingBook, type PairingGroup } from '../../../src/gateway/access/index.ts';
import { accessObject } from '../../../src/worker/access-object.ts';
import { objectStore } from '../../../src/worker/object-store.ts';
import type { WorkerEnv } from '../../../src/worker/worker-env.ts';

/** Approves `group` in the Worker's access object, as added by admin `by` (`platform:userId`). */
export async function approveGroup(group: PairingGroup, by: string): Promise<void> {
  await runInDurableObject(accessObject(env as WorkerEnv), async (_object, state) => {
    await new PairingBook(objectStore(state.storage)).groups.admit(group, by);
  });
}
