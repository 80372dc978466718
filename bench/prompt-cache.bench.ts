/**
 * Prompt-cache hit rate of a real conversation: a scripted 30-turn conversation through a real
 * Agent over a realistic profile (the fixture of `prompt.bench.ts`: 50 skills, 20 knowledge
 * files, memory, rules), the built-in and resource tools as the runtime gives them, the real
 * Anthropic provider and SDK, against the fake model server with its simulated Anthropic prompt
 * cache (breakpoints as sent, 20-block lookback, 1,024-token minimum, ~4 characters a token).
 *
 * Some turns call tools (knowledge_search, skill, memory) before answering. With the background
 * reviewer on (every 10 person turns, awaited after each turn so reviews happen at fixed points)
 * each review is a child request repeating the parent's prompt and saving one memory entry.
 * The figure is the share of all input tokens the provider would serve from its cache; the same
 * run with the reviewer off is the comparison. Every request that reads less than the whole
 * previous prompt of its line (the previous main request, or for a review the last main request
 * and then its own previous one) is reported as a cache break with what differed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../src/agent/agent.ts';
import { BackgroundReviewer, reviewPrompt } from '../src/agent/reviewer.ts';
import { getModelInfo } from '../src/llm/catalog.ts';
import { createAnthropicProvider } from '../src/llm/providers/anthropic.ts';
import { SessionManager } from '../src/session/session-manager.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { createBuiltinTools } from '../src/tools/builtin/index.ts';
import type { TurnContext } from '../src/tools/tool.ts';
import { ToolGrants } from '../src/gateway/access/tool-grants.ts';
import { TurnAccess } from '../src/gateway/turn-access.ts';
import { keepOverheard, turnText, type OverheardMessage } from '../src/gateway/conversations.ts';
import { keySegment } from '../src/gateway/dedupe.ts';
import { MemoryFile, storeConversationMemory } from '../src/memory/index.ts';
import type { InboundMessage } from '../src/channels/types.ts';
import { startFakeModelServer } from '../test/fakes/fake-model-server.ts';
import type { FakeModelServer, RecordedRequest, ReplySpec } from '../test/fakes/fake-model-server.ts';
import type { BenchResult } from './lib.ts';
import { benchChannel, generator, loadFixture, paragraph, sentence, writeProfileFixture } from './prompt.bench.ts';

const TURNS = 30;
const REVIEW_EVERY = 10;
const model = 'claude-sonnet-4-6';

/** The tool calls one scripted turn makes before its text answer (one model round each). */
type ToolRound = { name: string; arguments: Record<string, unknown> }[];

interface ScriptedTurn {
  input: string;
  rounds: ToolRound[];
  answer: string;
}

/** The conversation: the same every run. */
function conversation(): ScriptedTurn[] {
  const random = generator(42);
  const tools: Record<number, ToolRound[]> = {
    2: [[{ name: 'knowledge_search', arguments: { query: 'rollback release canary' } }]],
    5: [[{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'The canary stage holds 5% of traffic for 20 minutes before a full rollout.' } }]],
    8: [[{ name: 'knowledge_search', arguments: { query: 'database failover replica', limit: 3 } }]],
    11: [[{ name: 'skill', arguments: { name: 'rollback-service' } }]],
    14: [
      [{ name: 'knowledge_search', arguments: { query: 'certificate rotation vault' } }],
      [{ name: 'skill', arguments: { name: 'rotate-certificates' } }],
    ],
    18: [[{ name: 'knowledge_search', arguments: { query: 'queue backlog consumer latency' } }]],
    21: [[{ name: 'memory', arguments: { action: 'add', target: 'user', content: 'Ada is on call this week and wants incident context first.' } }]],
    24: [[{ name: 'knowledge_search', arguments: { query: 'terraform drift state lock' } }]],
    27: [
      [{ name: 'knowledge_search', arguments: { query: 'postmortem incident timeline' } }],
      [{ name: 'knowledge_search', arguments: { query: 'alert pager escalation owner', limit: 2 } }],
    ],
  };
  return Array.from({ length: TURNS }, (_, turn) => ({
    input: turn % 4 === 0 ? `${paragraph(random, 2)} ${sentence(random)}` : sentence(random, 10 + Math.floor(random() * 20)),
    rounds: tools[turn] ?? [],
    answer: Array.from({ length: 1 + Math.floor(random() * 3) }, () => paragraph(random)).join('\n\n'),
  }));
}

const reviewFacts = [
  'Rollbacks of the payments service need a second approver from team Ledger.',
  'Certificate rotation must be announced in #platform one day ahead.',
  'Queue backlog alerts above 10k messages page the on-call engineer.',
];

/** Whether a recorded request is a background review (its conversation carries the review prompt). */
function isReview(request: RecordedRequest): boolean {
  const messages = (request.body?.messages ?? []) as { role: string; content: { type: string; text?: string }[] }[];
  return messages.some((message) => message.role === 'user' && message.content.some((block) => block.type === 'text' && block.text === reviewPrompt));
}

interface RunFigures {
  requests: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  readFraction: number;
  main: { requests: number; input: number; read: number };
  review: { requests: number; input: number; read: number; reviews: number };
  breaks: string[];
  memoryEntries: number;
  /** How many tools the conversation's turns offered (the last turn's). */
  offered: number;
}

/**
 * Who speaks in a group run: `member` alone (no grants: the conversation's own tools and reading
 * in its folder), or `alternating` between that member and an admin granted every tool there, so
 * every other turn is offered a different tool list.
 */
type GroupSpeakers = 'member' | 'alternating' | 'three';

/** The three people of the `three` run (members, no grants), and someone they overhear. */
const people = [
  { id: '2', name: 'Ada Lovelace', username: 'ada' },
  { id: '3', name: 'Bea Stone' },
  { id: '4', name: 'Cy Young', username: 'cy' },
];
const chatter = { id: '5', name: 'Dee' };

/** A message of the bench's group (`telegram:group:-100`) from `sender`, as an adapter makes it. */
function groupMessage(sender: InboundMessage['sender'], text: string): InboundMessage {
  return { id: text.slice(0, 8), dedupeKey: text.slice(0, 8), sessionKey: 'telegram:group:-100', address: { platform: 'telegram', conversationId: '-100' }, scope: 'group', sender, text, attachments: [], mentioned: true, receivedAt: 0, raw: {} };
}

export default async function run(): Promise<BenchResult[]> {
  const on = await converse(true);
  const off = await converse(false);
  const group = await converse(true, 'member');
  const mixed = await converse(true, 'alternating');
  const three = await converse(true, 'three');
  const fraction = (part: { input: number; read: number }) => (part.input === 0 ? 0 : part.read / part.input);
  const breaks = (figures: RunFigures) => (figures.breaks.length === 0 ? 'no cache breaks' : `cache breaks: ${figures.breaks.join(' | ')}`);
  return [
    {
      name: 'input tokens served from the cache, reviewer on (readFraction)',
      value: on.readFraction,
      unit: '',
      target: '>= 0.90',
      pass: on.readFraction >= 0.9,
      note: `${TURNS} turns, ${on.review.reviews} reviews; ${breaks(on)}`,
    },
    { name: 'reviewer on: requests', value: on.requests, unit: '', note: `${on.main.requests} conversation + ${on.review.requests} review` },
    { name: 'reviewer on: input tokens (cached included)', value: on.inputTokens, unit: 'tokens' },
    { name: 'reviewer on: cache reads', value: on.cacheReadTokens, unit: 'tokens' },
    { name: 'reviewer on: cache writes', value: on.cacheWriteTokens, unit: 'tokens' },
    { name: "reviewer on: the conversation's requests alone, read fraction", value: fraction(on.main), unit: '', note: `${on.main.read} of ${on.main.input} tokens` },
    { name: "reviewer on: the reviews' requests alone, read fraction", value: fraction(on.review), unit: '', note: `${on.review.read} of ${on.review.input} tokens; memory entries saved ${on.memoryEntries}` },
    {
      name: 'a group member without grants, reviewer on (readFraction)',
      value: group.readFraction,
      unit: '',
      target: '>= 0.90',
      pass: group.readFraction >= 0.9,
      note: `the tools offered are the conversation's own and reading in its folder (${group.offered}); ${breaks(group)}`,
    },
    {
      name: 'a group where a granted admin and a member take turns, reviewer on (readFraction)',
      value: mixed.readFraction,
      unit: '',
      note: `the tool list changes with the speaker; ${mixed.breaks.length} cache breaks`,
    },
    {
      name: 'a group where three people take turns, each labelled, someone overheard every third turn, reviewer on (readFraction)',
      value: three.readFraction,
      unit: '',
      target: '>= 0.85',
      pass: three.readFraction >= 0.85,
      note: `members without grants; their words as the gateway gives them ([name · telegram:id] (speaker), <recent_chat>), each person's notes riding along with their turns; ${breaks(three)}`,
    },
    {
      name: 'input tokens served from the cache, reviewer off (readFraction)',
      value: off.readFraction,
      unit: '',
      note: `${off.requests} requests, ${off.inputTokens} input tokens, ${off.cacheReadTokens} read, ${off.cacheWriteTokens} written; ${breaks(off)}`,
    },
  ];
}

/** Runs the scripted conversation on a fresh profile and a fresh fake server. */
async function converse(withReviewer: boolean, speakers?: GroupSpeakers): Promise<RunFigures> {
  const root = await mkdtemp(join(tmpdir(), 'operator-bench-prompt-cache-'));
  const server = await startFakeModelServer({ promptCache: true });
  try {
    const fixture = writeProfileFixture(root);
    // Each person of the `three` run has notes of their own, which ride along with their turns.
    const place = storeConversationMemory(createStore({ driver: 'memory' }), keySegment);
    if (speakers === 'three') {
      for (const person of people) {
        const notes = await MemoryFile.open(place.personLocation(`telegram:${person.id}`), { limit: 1_375, storage: place.storage });
        await notes.add(`${person.name} prefers short answers with one example, and reads them in the morning.`);
      }
    }
    const { resources } = await loadFixture(fixture, place);
    const agent = new Agent({
      provider: createAnthropicProvider({ apiKey: 'bench-key', baseURL: server.anthropicBaseURL }),
      model,
      modelInfo: getModelInfo(model),
      sessions: new SessionManager(createStore({ driver: 'memory' })),
      sessionKey: benchChannel,
      tools: createBuiltinTools({ cwd: fixture.cwd }),
      resources,
      cwd: fixture.cwd,
    });
    const reviewer = withReviewer ? new BackgroundReviewer(agent, { everyTurns: REVIEW_EVERY }) : undefined;
    // A group's turns are told their tools and workspace as the gateway tells them.
    const grants = new ToolGrants({ grants: [{ tools: 'all', people: ['telegram:1'], scope: 'any' }], localWeb: false, sandboxed: true });
    const access = new TurnAccess({ grants, cwd: fixture.cwd, home: root });
    const turnOf = async (index: number): Promise<TurnContext | undefined> => {
      if (!speakers) return undefined;
      const senderId = speakers === 'three' ? people[index % people.length]!.id : speakers === 'alternating' && index % 2 === 1 ? '1' : '2';
      const seat = { sessionKey: 'telegram:group:-100', platform: 'telegram', scope: 'group' as const, conversationId: '-100', senderId, admin: senderId === '1' };
      const tools = await access.forTurn(seat, agent.tools, resources.tempDirectory);
      return { sessionKey: seat.sessionKey, platform: seat.platform, senderId, admin: seat.admin, scheduled: false, ...tools };
    };
    let offered = agent.tools.length;
    agent.setReviewer(reviewer);

    // Conversation replies come from a queue filled per turn; reviews are answered by content,
    // so a review can never take a reply meant for the conversation.
    const queue: ReplySpec[] = [];
    let reviews = 0;
    server.setDefault((request) => {
      if (!isReview(request)) return queue.shift() ?? { text: 'ok' };
      const last = (request.body.messages as { content: { type: string }[] }[]).at(-1);
      if (last?.content.some((block) => block.type === 'tool_result')) return { text: 'Saved one fact.', usage: { output: 6 }, chunkSize: 256 };
      const content = reviewFacts[reviews++ % reviewFacts.length]!;
      return { toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content } }], usage: { output: 40 } };
    });

    let memoryEntries = 0;
    for (const [index, turn] of conversation().entries()) {
      for (const round of turn.rounds) queue.push({ toolCalls: round, usage: { output: 30 } });
      queue.push({ text: turn.answer, usage: { output: Math.ceil(turn.answer.length / 4) }, chunkSize: 256 });
      const context = await turnOf(index);
      offered = context?.tools?.size ?? agent.tools.length;
      // In the `three` run, each turn's words as the gateway gives them: labelled, after what was overheard.
      const overheard: OverheardMessage[] = [];
      if (speakers === 'three' && index % 3 === 2) keepOverheard(overheard, groupMessage(chatter, `did anyone see turn ${index}?`));
      const input = speakers === 'three' ? turnText({ overheard }, groupMessage(people[index % people.length]!, turn.input)) : turn.input;
      await agent.invoke(input, { channel: benchChannel, turn: context });
      const outcome = await reviewer?.running;
      if (outcome?.status === 'done') memoryEntries++;
      else if (outcome && outcome.status !== 'skipped') throw new Error(`review ${outcome.status}: ${outcome.error ?? ''}`);
      if (queue.length > 0) throw new Error(`turn left ${queue.length} scripted replies unused`);
    }
    agent.dispose();
    return { ...figures(server, memoryEntries), offered };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

function figures(server: FakeModelServer, memoryEntries: number): Omit<RunFigures, 'offered'> {
  const stats = server.cacheStats();
  const main = { requests: 0, input: 0, read: 0 };
  const review = { requests: 0, input: 0, read: 0, reviews: 0 };
  const breaks: string[] = [];
  let lastMain: RecordedRequest | undefined;
  let previous: RecordedRequest | undefined;
  for (const [index, request] of server.requests.entries()) {
    const cache = request.cache;
    if (!cache) continue;
    const reviewing = isReview(request);
    const part = reviewing ? review : main;
    part.requests++;
    part.input += cache.inputTokens;
    part.read += cache.cacheReadTokens;
    // The request this one should extend: a review's first request extends the conversation's
    // last one; every later request extends the previous one of its own line.
    const reviewStart = reviewing && (previous === undefined || !isReview(previous));
    if (reviewStart) review.reviews++;
    const parent = reviewing && !reviewStart ? previous : lastMain;
    const expected = parent?.cache?.inputTokens ?? 0;
    if (parent && cache.cacheReadTokens < expected) {
      breaks.push(`request ${index + 1} (${reviewing ? 'review' : 'conversation'}) read ${cache.cacheReadTokens} of ${expected}: ${difference(parent, request)}`);
    }
    if (!reviewing) lastMain = request;
    previous = request;
  }
  return { ...stats, main, review, breaks, memoryEntries };
}

/** What differs between a request and the one it should extend, in cache order. */
function difference(parent: RecordedRequest, request: RecordedRequest): string {
  const bare = (value: unknown) => JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner));
  if (parent.body.model !== request.body.model) return `model ${parent.body.model} -> ${request.body.model}`;
  const [toolsBefore, toolsAfter] = [(parent.body.tools ?? []) as { name: string }[], (request.body.tools ?? []) as { name: string }[]];
  if (bare(toolsBefore) !== bare(toolsAfter)) {
    const names = (tools: { name: string }[]) => tools.map((tool) => tool.name).join(',');
    if (names(toolsBefore) !== names(toolsAfter)) return `tools differ: [${names(toolsBefore)}] -> [${names(toolsAfter)}]`;
    const changed = toolsAfter.filter((tool, index) => bare(tool) !== bare(toolsBefore[index])).map((tool) => tool.name);
    return `tool definitions changed: ${changed.join(', ')}`;
  }
  const [systemBefore, systemAfter] = [systemText(parent), systemText(request)];
  if (systemBefore !== systemAfter) {
    let at = 0;
    while (at < systemBefore.length && systemBefore[at] === systemAfter[at]) at++;
    const lineStart = systemAfter.lastIndexOf('\n', at) + 1;
    const lineEnd = systemAfter.indexOf('\n', at);
    const line = systemAfter.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
    return `system prompt changed at char ${at} of ${systemAfter.length} (${systemAfter.length - systemBefore.length >= 0 ? '+' : ''}${systemAfter.length - systemBefore.length} chars), line "${line.slice(0, 80)}"`;
  }
  if (bare(parent.body.thinking) !== bare(request.body.thinking) || bare(parent.body.tool_choice) !== bare(request.body.tool_choice)) return 'thinking or tool_choice changed';
  const [before, after] = [(parent.body.messages ?? []) as unknown[], (request.body.messages ?? []) as unknown[]];
  for (let index = 0; index < before.length; index++) {
    if (bare(before[index]) !== bare(after[index])) {
      return `message ${index} differs: ${bare(before[index]).slice(0, 120)} -> ${bare(after[index]).slice(0, 120)}`;
    }
  }
  return `same prefix, yet not read (more than 20 blocks added since, or below the minimum): ${after.length - before.length} messages added`;
}

function systemText(request: RecordedRequest): string {
  const system = request.body.system as string | { text: string }[] | undefined;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}
