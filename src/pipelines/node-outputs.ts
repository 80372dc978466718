/**
 * A `codergen` node's `outputs`: the facts its answer must give the pipeline, as typed context
 * keys the edges' conditions can test (`outputs="tests_passed:boolean, risk:low|medium|high"`).
 * After the agent answers, one structured-output call reads them, with the node's outcome and why,
 * from the answer (see `generateObject`): the outcome no longer hangs on a line the agent may
 * forget to write. Declared as `name` (text), `name:boolean`, `name:number` or `name:a|b|c`.
 */
import * as z from 'zod';

/** One declared output. */
export interface NodeOutput {
  name: string;
  type: 'string' | 'boolean' | 'number' | { choices: string[] };
}

/** The outputs an `outputs` attribute declares; throws a clear error for a bad one. */
export function parseOutputs(text: string): NodeOutput[] {
  const outputs: NodeOutput[] = [];
  for (const part of text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')) {
    const [name = '', type = 'string'] = part.split(':').map((piece) => piece.trim());
    if (!/^[A-Za-z_][\w]*$/.test(name) || name === 'outcome' || name === 'reason') throw new Error(`outputs: "${name}" is not a usable name (letters, digits and _, not outcome or reason)`);
    if (type === 'string' || type === 'boolean' || type === 'number') outputs.push({ name, type });
    else if (/^\w[\w-]*(\|\w[\w-]*)+$/.test(type)) outputs.push({ name, type: { choices: type.split('|') } });
    else throw new Error(`outputs: "${name}:${type}" has no known type (string, boolean, number, or choices like a|b|c)`);
  }
  return outputs;
}

/** The zod schema of a node's structured reading: its outcome, why, and its outputs. */
export function outputsSchema(outputs: readonly NodeOutput[]) {
  const fields: Record<string, z.ZodType> = {
    outcome: z.enum(['success', 'fail', 'retry']).describe('success when the step did what it was asked; fail when it could not; retry when another attempt could succeed'),
    reason: z.string().describe('one sentence: why this outcome'),
  };
  for (const output of outputs) {
    fields[output.name] =
      output.type === 'string' ? z.string() : output.type === 'boolean' ? z.boolean() : output.type === 'number' ? z.number() : z.enum(output.type.choices as [string, ...string[]]);
  }
  return z.object(fields);
}
