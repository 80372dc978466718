/**
 * Append-only logs on key-value backends (memory, Redis, injected storage), where rewriting one
 * growing value per append would cost more as the log grows. Each record gets its own key
 * `<log>:<zero-padded sequence>` and a counter at `<log>:next` hands out sequence numbers, so an
 * append costs one read and two small writes however long the log is, and a read or a delete
 * finds the records from the counter, whatever else the storage holds.
 *
 * The counter is read and bumped under the caller's per-key in-process lock; two processes
 * appending to the same log at the same moment could pick the same number.
 */
import type { Storage } from 'unstorage';

/** Digits of a record's sequence number; fixed width so keys also sort by text. */
const SEQUENCE_WIDTH = 12;
const SEQUENCE = /^\d+$/;
/** Records fetched per `getItems` call (Redis turns each call into one MGET). */
const BATCH_SIZE = 500;

interface RecordValue {
  v: string;
}

/**
 * Appends `record` to the log at `key`. The caller holds the in-process lock for `key`.
 * `counters` (when this process is the storage's only writer) keeps each log's next sequence
 * number after its first read, so an append is one write call.
 */
export async function appendKeyedRecord(storage: Storage, key: string, record: string, counters?: Map<string, number>): Promise<void> {
  const counterKey = `${key}:next`;
  let sequence = counters?.get(key);
  if (sequence === undefined) {
    const stored = await storage.getItem<{ v: number }>(counterKey);
    sequence = typeof stored?.v === 'number' ? stored.v : 0;
  }
  // Forgotten until the write succeeds: a failed one is read again from the storage next time.
  counters?.delete(key);
  const value: RecordValue = { v: record };
  const recordKey = recordKeyOf(key, sequence);
  // A backend that writes several keys in one call (a Durable Object's storage, atomically)
  // takes both at once.
  if (storage.getMount(counterKey).driver.setItems) {
    await storage.setItems<{ v: number | string }>([
      { key: counterKey, value: { v: sequence + 1 } },
      { key: recordKey, value },
    ]);
  } else {
    // Bump the counter before writing the record: a crash in between leaves a gap, which reads
    // skip, never a number handed out twice.
    await storage.setItem(counterKey, { v: sequence + 1 });
    await storage.setItem(recordKey, value);
  }
  counters?.set(key, sequence + 1);
}

/** The records of the log at `key` in append order. */
export async function readKeyedRecords(storage: Storage, key: string): Promise<string[]> {
  const recordKeys = await recordKeysOf(storage, key);
  const records: string[] = [];
  for (let start = 0; start < recordKeys.length; start += BATCH_SIZE) {
    const batch = await storage.getItems<RecordValue>(recordKeys.slice(start, start + BATCH_SIZE));
    for (const { value } of batch) {
      // A record deleted between listing and reading is simply gone.
      if (value === null || value === undefined) continue;
      // Anything else under a record's key (damage, another tool's write) is handed on as its JSON
      // text, one line that parses as no record of the reader's: it is seen, and reported, not skipped.
      records.push(typeof value.v === 'string' ? value.v : JSON.stringify(value));
    }
  }
  return records;
}

/** Deletes every record and the counter of the log at `key`. */
export async function deleteKeyedLog(storage: Storage, key: string): Promise<void> {
  const recordKeys = await recordKeysOf(storage, key);
  await Promise.all(recordKeys.map((recordKey) => storage.removeItem(recordKey)));
  // The counter last: a crash before it leaves a counter over missing records (gaps, skipped),
  // never records with no counter, which the next log would count from 0 beside.
  await storage.removeItem(`${key}:next`);
}

/**
 * Moves the log at `from` to `to`, replacing the log there: the records are copied (renumbered from
 * 0), then `from` is deleted, so a crash in between leaves both copies, never neither. Nothing
 * happens when `from` holds no record. The caller holds the in-process locks of both keys.
 */
export async function moveKeyedLog(storage: Storage, from: string, to: string): Promise<void> {
  const records = await readKeyedRecords(storage, from);
  if (records.length === 0) {
    await deleteKeyedLog(storage, from);
    return;
  }
  await deleteKeyedLog(storage, to);
  for (const [index, record] of records.entries()) {
    const value: RecordValue = { v: record };
    await storage.setItem(recordKeyOf(to, index), value);
  }
  await storage.setItem(`${to}:next`, { v: records.length });
  await deleteKeyedLog(storage, from);
}

/**
 * The keys of the log's records, in order. Read from its counter: every record is numbered below
 * it (the counter is bumped first), so this costs one read however large the storage is. Listing
 * keys by prefix would walk every key there is (the memory driver hands back all of them; Redis
 * SCANs the whole database), once per log read. No counter is no log: records left without one
 * are what a delete cut short was removing (the counter goes last, and an older version's delete
 * that removed it first left only records on their way out). A counter that is there but damaged
 * (another tool's write) falls back to listing, so the records are still read.
 */
async function recordKeysOf(storage: Storage, key: string): Promise<string[]> {
  const counter = await storage.getItem<{ v?: unknown }>(`${key}:next`);
  if (counter === null || counter === undefined) return [];
  const next = counter.v;
  if (typeof next === 'number' && Number.isSafeInteger(next) && next >= 0 && next <= maxCountedRecords) {
    return Array.from({ length: next }, (_, sequence) => recordKeyOf(key, sequence));
  }
  return listRecordKeys(storage, key);
}

/** Past this many, a counter is taken for damage rather than a log's length (and listing decides). */
const maxCountedRecords = 10_000_000;

function recordKeyOf(key: string, sequence: number): string {
  return `${key}:${String(sequence).padStart(SEQUENCE_WIDTH, '0')}`;
}

async function listRecordKeys(storage: Storage, key: string): Promise<string[]> {
  const start = key.length + 1;
  return (await storage.getKeys(key))
    .filter((candidate) => candidate.startsWith(`${key}:`) && SEQUENCE.test(candidate.slice(start)))
    .sort((a, b) => Number(a.slice(start)) - Number(b.slice(start)));
}
