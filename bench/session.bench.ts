/**
 * Session persistence on the fs store: an append must cost the same at entry 10 and at entry
 * 10,000, and reloading a 10,000-entry session (open from the store + buildContext) must stay
 * interactive. A session that long has been compacted many times (its messages hold millions of
 * tokens), which is the case the target is for; the never-compacted session is reported as the
 * worst case, bounded by JSON.parse of every record.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../src/llm/types.ts';
import { SessionTree } from '../src/session/session-tree.ts';
import type { Store } from '../src/store/store.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { collectGarbage, median, sample, type BenchResult } from './lib.ts';

const LONG = 10_000;
const SAMPLES = 200;
const quiet = { onWarning: () => {} };
/** The agent's defaults (src/agent/compaction.ts, 128k window): compact above 112k tokens, keep 20k. */
const COMPACT_ABOVE_TOKENS = 128_000 - 16_384;
const KEEP_RECENT_TOKENS = 20_000;

export default async function run(): Promise<BenchResult[]> {
  const base = await mkdtemp(join(tmpdir(), 'operator-bench-session-'));
  const store = createStore({ driver: 'fs', base });
  try {
    const probe: Message = { role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }] };

    // At entry 10,000: one long session. At entry 10: many short sessions, each timed on its
    // 11th append. The two are timed in turn so that load from elsewhere hits both alike; the
    // long session is rewound afterwards so the probes do not count in the rebuild below.
    const long = await buildSession(store, 'long', false);
    const lastEntry = long.leafId;
    const short: number[] = [];
    const longSamples: number[] = [];
    for (let session = 0; session < SAMPLES; session++) {
      const tree = await SessionTree.open(store, `short-${session}`, quiet);
      for (let index = 0; index < 10; index++) await tree.appendMessage(realisticMessage(index));
      short.push(...(await sample(1, () => tree.appendMessage(probe), 0)));
      longSamples.push(...(await sample(1, () => long.appendMessage(probe), 0)));
    }
    await long.setLeaf(lastEntry);
    await buildSession(store, 'compacted', true);

    const atTen = median(short);
    const atTenThousand = median(longSamples);
    const ratio = atTenThousand / atTen;
    const compacted = await timeRebuild(store, 'compacted');
    const uncompacted = await timeRebuild(store, 'long');
    const size = async (id: string) => `${((await stat(join(base, 'sessions', id))).size / 2 ** 20).toFixed(1)} MiB`;

    return [
      { name: 'append at entry 10 (median)', value: atTen, unit: 'ms' },
      { name: 'append at entry 10,000 (median)', value: atTenThousand, unit: 'ms' },
      { name: 'append cost ratio 10,000 / 10', value: ratio, unit: 'x', target: '<= 1.5', pass: ratio <= 1.5 },
      {
        name: 'open + buildContext, 10,000 entries, compacted as the agent does (median)',
        value: compacted.ms,
        unit: 'ms',
        target: '<= 50 ms',
        pass: compacted.ms <= 50,
        note: `log ${await size('compacted')}, ${compacted.messages} messages in context`,
      },
      {
        name: 'open + buildContext, 10,000 entries, never compacted (median)',
        value: uncompacted.ms,
        unit: 'ms',
        note: `worst case: log ${await size('long')}, all ${uncompacted.messages} messages parsed into the context`,
      },
    ];
  } finally {
    await store.close();
    await rm(base, { recursive: true, force: true });
  }
}

/**
 * Writes a session of {@link LONG} entries. With `compact`, a compaction is appended whenever the
 * context would pass the agent's threshold, keeping the most recent messages as the agent does.
 */
async function buildSession(store: Store, id: string, compact: boolean): Promise<SessionTree> {
  const tree = await SessionTree.open(store, id, quiet);
  const context: { id: string; tokens: number }[] = [];
  let contextTokens = 0;
  for (let index = 0; tree.entries().length < LONG; index++) {
    const message = realisticMessage(index);
    const entry = await tree.appendMessage(message);
    const tokens = Math.ceil(JSON.stringify(message).length / 4);
    context.push({ id: entry.id, tokens });
    contextTokens += tokens;
    if (!compact || contextTokens <= COMPACT_ABOVE_TOKENS || tree.entries().length >= LONG) continue;
    let kept = 0;
    let first = context.length;
    while (first > 0 && kept + context[first - 1]!.tokens <= KEEP_RECENT_TOKENS) kept += context[--first]!.tokens;
    const summary = prose(index, 250);
    await tree.append({ type: 'compaction', summary, firstKeptEntryId: context[first]!.id, tokensBefore: contextTokens });
    context.splice(0, first);
    contextTokens = kept + Math.ceil(summary.length / 4);
  }
  return tree;
}

/** Median time to open session `id` from the store and build its context. */
async function timeRebuild(store: Store, id: string): Promise<{ ms: number; messages: number }> {
  collectGarbage();
  let messages = 0;
  const samples = await sample(
    15,
    async () => {
      const tree = await SessionTree.open(store, id, quiet);
      messages = tree.buildContext().messages.length;
    },
    3,
  );
  return { ms: median(samples), messages };
}

const WORDS = 'the session tree keeps every entry and moves a leaf so rewinding costs nothing while the context is rebuilt from the path'.split(' ');

function prose(seed: number, words: number): string {
  let text = '';
  for (let index = 0; index < words; index++) text += `${WORDS[(seed * 7 + index * 13) % WORDS.length]} `;
  return text.trim();
}

/** A turn of an agent conversation: user prompt, assistant text with a tool call, tool result. */
function realisticMessage(index: number): Message {
  switch (index % 3) {
    case 0:
      return { role: 'user', content: [{ type: 'text', text: prose(index, 30 + (index % 40)) }], timestamp: 1_700_000_000_000 + index };
    case 1:
      return {
        role: 'assistant',
        content: [
          { type: 'thinking', text: prose(index, 40), signature: 'sig'.repeat(20) },
          { type: 'text', text: prose(index + 1, 60 + (index % 50)) },
          { type: 'tool-call', id: `call_${index}`, name: 'read_file', arguments: { path: `src/module-${index % 97}.ts`, offset: index % 300 } },
        ],
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        usage: { input: 1200 + index, output: 340, cacheRead: 18_000, cacheWrite: 0 },
        stopReason: 'tool-calls',
        timestamp: 1_700_000_000_000 + index,
      };
    default:
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call_${index - 1}`,
            toolName: 'read_file',
            content: [{ type: 'text', text: `export function f${index}() {\n  return ${JSON.stringify(prose(index, 80))};\n}\n`.repeat(2) }],
            isError: false,
          },
        ],
        timestamp: 1_700_000_000_000 + index,
      };
  }
}
