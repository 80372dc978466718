/**
 * The modes of what operator creates under `OPERATOR_HOME`: folders 0700, files 0600, so no other
 * user of the machine reads a conversation, a token or a memory file.
 *
 * Each place that creates something there passes these modes explicitly rather than the process
 * setting a umask of 077. A umask is process-wide: it would also make private every file the
 * owner's tools write into their project (a checkout others on the machine may need to read) and,
 * inherited, every file the sandboxed commands create (`npm install`, `git clone`); and any code
 * that sets its own umask would undo it silently. An explicit mode says, where the file is made,
 * that it is private, and holds whatever the umask (a umask only ever removes bits from it).
 */
import { mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';

/** Mode of every folder operator creates under `OPERATOR_HOME`: the owner's alone. */
export const privateFolderMode = 0o700;

/** Mode of every file operator creates under `OPERATOR_HOME`: the owner may read and write it, nobody else. */
export const privateFileMode = 0o600;

/** Creates `folder` and its missing parents, each 0700; an existing folder keeps its mode. */
export async function makePrivateFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: privateFolderMode });
}

/** {@link makePrivateFolder}, synchronously (for the store's synchronous writes). */
export function makePrivateFolderSync(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: privateFolderMode });
}
