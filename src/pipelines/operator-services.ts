/**
 * What a pipeline's working nodes run on in operator. A `codergen` node asks an agent made by the
 * runtime with the profile the run was started with (its prompt, tools and guardrails), with the
 * node's model, provider, temperature, output cap and reasoning effort when it (or the
 * stylesheet, or the run's `--model`/`--provider`) names them (see `node-model.ts`), working as
 * the person who started the run (the same tools and workspace as their turns); nodes of one
 * `thread_id` and the same settings share a session, other nodes get their own. Its answer comes
 * back with what its calls used (tokens and cost, for the run folder).
 * A `tool` node's command runs in the same sandbox as the agent's `shell` tool, and only where
 * the run's turn has that tool (a run keeps the seat of the turn that started it), after the same
 * guardrails (a guardrail's question goes where the host asks approvals: a chat's approval buttons,
 * else the run's Interviewer; a block refuses the command),
 * its output redacted by them as the tool's would be. The per-turn counters (the call cap, the
 * repeated-call guard) are left out: a pipeline's loops are meant, and `max_steps` bounds them.
 * Every model call of the run (its agents', and the reading of a node's outputs) passes the
 * host's spending gate, its turn naming the run, so the run's own cap (`budgets.pipelineRun`)
 * counts them all.
 */
import type { Agent } from '../agent/agent.ts';
import type { ApprovalRequest } from '../agent/agent-options.ts';
import type { SpendGate } from '../agent/spend-gate.ts';
import { GuardrailSet } from '../agent/guardrail-set.ts';
import { errorMessage } from '../core/errors.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { generateObject } from '../llm/generate-object.ts';
import { getModelInfo } from '../llm/catalog.ts';
import { computeCost } from '../llm/cost.ts';
import { runCommand } from '../tools/builtin/run-command.ts';
import type { Usage } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';
import type { Interviewer } from './engine/interviewer.ts';
import type { HandlerServices } from './handlers/registry.ts';
import { nodeModel, nodeModelKey } from './node-model.ts';
import type { NodeUsage, PipelineNode } from './types.ts';

/** Guardrails that count calls per turn: not for a pipeline's commands (see the file's comment). */
const perTurnGuardrails = new Set(['doom-loop', 'tool-call-cap']);

/** Longest a `tool` node's command may run when its node sets no timeout. */
const defaultCommandTimeoutMs = 10 * 60_000;

/** Who a run works for and where. */
export interface PipelineHost {
  runtime: Runtime;
  profile: string;
  runId: string;
  interviewer: Interviewer;
  /** The turn of the person who started it (a chat); unset for the owner's terminal. */
  turn?: TurnContext;
  /** The model of nodes that name none (`--model`). */
  model?: string;
  /** The provider of nodes that name none (`--provider`). */
  provider?: string;
  /**
   * How a guardrail's question about a `tool` node's command (or a node agent's call) is asked: a
   * chat run asks as the chat's own turns do (the approval buttons, their timeout, the admins'
   * direct messages, the hour's allowance); unset, or resolving to undefined (it cannot ask
   * there): the run's Interviewer (a gate's question; the terminal's y/N).
   */
  requestApproval?: (request: ApprovalRequest) => Promise<boolean | undefined>;
  /** The spending gate of run `runId`'s model calls (the gateway's; the terminal's holds the run's cap alone); unset: none. */
  spend?: (runId: string) => SpendGate;
}

/** A model call's usage and cost as the run folder keeps them. */
function nodeUsage(usage: Usage, cost: number): NodeUsage {
  return { input: usage.input, output: usage.output, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, cost };
}

/** The services of one run, and how to let go of them (its agents). */
export async function operatorServices(host: PipelineHost): Promise<{ services: HandlerServices; close(): void }> {
  const { runtime, interviewer } = host;
  // Each call counts for the run (its cap), and for whom and where it works, as a turn there would.
  const turn = host.turn && { ...host.turn, pipelineRun: host.runId };
  const spend = host.spend?.(host.runId);
  const { resources } = await runtime.resources(host.profile);
  const guardrails = new GuardrailSet(resources.guardrails().filter((guardrail) => !perTurnGuardrails.has(guardrail.name)));
  const agents = new Map<string, Promise<Agent>>();
  const askPerson = async (request: ApprovalRequest): Promise<boolean> => {
    const asked = await host.requestApproval?.(request);
    if (asked !== undefined) return asked;
    const answer = await interviewer.ask(
      { text: `Allow ${request.call.name} ${JSON.stringify(request.call.arguments).slice(0, 300)}? ${request.reason}`, stage: 'approval', options: [{ label: 'Allow', value: 'allow' }, { label: 'Deny', value: 'deny' }], defaultAnswer: 'Deny', timeoutSeconds: 300 },
      request.signal,
    );
    return answer.option?.value === 'allow';
  };
  // One agent per thread and model settings: a node's temperature, output cap, effort and model are its agent's.
  const agentFor = (node: PipelineNode): Promise<Agent> => {
    const thread = node.threadId ?? node.name;
    const settings = nodeModel(node, host, runtime.client.provider.name, runtime.env);
    const key = `${thread}\n${nodeModelKey(settings)}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = runtime.createAgent({ sessionKey: `pipeline:${host.runId}:${thread}`, profile: host.profile, ...settings, requestApproval: askPerson, spend }).then((made) => made.agent);
      agents.set(key, agent);
    }
    return agent;
  };
  const cwd = turn?.workspace?.cwd ?? runtime.cwd;
  const writable = turn?.workspace?.roots ?? [cwd];

  const services: HandlerServices = {
    // A node's declared outputs, read from its answer by the model that gave it (one structured call).
    async readOutputs({ node, answer, schema, signal }) {
      const agent = await agentFor(node);
      const system = 'You read the answer an agent gave to one step of a pipeline and report, strictly from that answer, the step\'s outcome and the facts asked for. Do not guess beyond it.';
      const prompt = `The step "${node.name}" was asked:\n${node.prompt || node.label || node.name}\n\nThe agent's answer:\n${answer}`;
      // Not an agent's call, so checked here: its worst case reserved as the agents' calls are.
      const ticket = await spend?.reserve({ model: agent.model, systemPrompt: system, messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }] }, turn);
      let usage: Usage | undefined;
      try {
        const result = await generateObject({ provider: agent.options.provider, model: agent.model, schema, name: 'step_outcome', system, prompt, signal });
        usage = result.usage;
        return { values: result.object as Record<string, unknown>, usage: nodeUsage(result.usage, computeCost(result.usage, getModelInfo(agent.model)).total) };
      } finally {
        ticket?.settle(usage);
      }
    },
    async codergen({ node, prompt, signal }) {
      const agent = await agentFor(node);
      const stop = () => agent.abort();
      signal.addEventListener('abort', stop, { once: true });
      try {
        const result = await agent.invoke(prompt, { channel: `pipeline:${host.runId}`, turn });
        signal.throwIfAborted();
        return { text: result.text, usage: nodeUsage(result.usage, result.cost.total) };
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
    async runCommand(command, { signal, timeoutMs }) {
      // The seat the run works from has no commands (a run started where they are not offered, or
      // kept from before seats were): refused like a guardrail's block.
      if (turn?.tools && !turn.tools.has('shell')) return { exitCode: null, output: '', refused: "this run's seat has no shell tool (the turn that started it could not run commands)" };
      const call = { type: 'tool-call' as const, id: `pipeline-${host.runId}`, name: 'shell', arguments: { command } };
      const decision = await guardrails.before(call, turn);
      if (decision.action === 'block' || decision.action === 'halt') return { exitCode: null, output: '', refused: decision.reason };
      if (decision.action === 'ask' && !(await askPerson({ call, reason: decision.reason, signal }))) return { exitCode: null, output: '', refused: `not approved: ${decision.reason}` };
      try {
        const result = await runCommand({ spawn: runtime.sandbox.spawnSpec({ shell: '/bin/bash', command, cwd, writable }), timeoutMs: timeoutMs ?? defaultCommandTimeoutMs, signal });
        const raw = [result.stdout, result.stderr].filter((part) => part !== '').join('\n');
        const checked = await guardrails.after(call, { content: [{ type: 'text', text: raw }], isError: result.exitCode !== 0 });
        const output = checked.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
        return { exitCode: result.timedOut ? null : result.exitCode, output: result.timedOut ? `${output}\n[timed out after ${Math.round((timeoutMs ?? defaultCommandTimeoutMs) / 1000)} s]` : output };
      } catch (error) {
        signal.throwIfAborted();
        return { exitCode: null, output: `could not start the command: ${errorMessage(error)}` };
      }
    },
  };
  return {
    services,
    close() {
      for (const agent of agents.values()) void agent.then((made) => made.dispose(), () => undefined);
    },
  };
}
