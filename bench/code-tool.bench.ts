/**
 * The `code` tool on a small TypeScript project (a tsconfig.json and two files, one importing the
 * other): the first call (the language server and its tsserver started, the project loaded, the
 * first `definition` answered) in the bubblewrap sandbox, as the runtime runs it, and without a
 * sandbox, the two alternating in the same run; a warm `definition`, `hover` and `diagnostics` in
 * the sandbox, and the stop. The floor is a bare `read_file` of the same file in the same run. No
 * target: the figures are reported.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadFileTool } from '../src/tools/builtin/read-file.ts';
import { createCodeTool } from '../src/tools/code/code-tool.ts';
import { LanguageServers } from '../src/tools/code/language-servers.ts';
import { createSandbox } from '../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../src/tools/sandbox/sandbox.ts';
import type { Tool } from '../src/tools/tool.ts';
import { elapsedMs, median, sample, type BenchResult } from './lib.ts';

const files = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, skipLibCheck: true, types: [] },
    include: ['src'],
  }),
  'src/math.ts': '/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/main.ts': "import { add } from './math.js';\n\nconst total: number = add(1, 2);\nconst wrong: string = add(3, 4);\nexport { total, wrong };\n",
};

/** Cold starts measured (each a new server), with and without the sandbox each. */
const coldRuns = 5;

export default async function run(): Promise<BenchResult[]> {
  const project = await realpath(await mkdtemp(join(tmpdir(), 'operator-bench-code-')));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(project, name, '..'), { recursive: true });
    await writeFile(join(project, name), content);
  }
  const call = async (tool: Tool, args: Record<string, unknown>, expected: string) => {
    const output = await tool.execute(tool.parameters.parse(args), { signal: new AbortController().signal, cwd: project, toolCallId: 'bench' });
    const text = typeof output === 'string' ? output : String(typeof output.content === 'string' ? output.content : output.content.map((part) => (part.type === 'text' ? part.text : '')).join(''));
    if (!text.includes(expected)) throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
  };
  const definition = { action: 'definition', path: 'src/main.ts', line: 3, symbol: 'add' };
  // OPERATOR_HOME is hidden from the sandbox, as the runtime makes it.
  const home = await mkdtemp(join(tmpdir(), 'operator-bench-code-home-'));
  try {
    const readFile = createReadFileTool();
    const floor = median(await sample(50, () => call(readFile, { path: 'src/main.ts' }, 'import { add }'), 10));

    const sandbox = createSandbox(defaultSandboxSettings, { hidden: [home], env: process.env });
    if (sandbox.kind !== 'bubblewrap') throw new Error(`the code tool bench needs bubblewrap: ${sandbox.describe()}`);
    const firstCalls = { bubblewrap: [] as number[], none: [] as number[] };
    const stops: number[] = [];
    const coldStart = async (kind: 'bubblewrap' | 'none') => {
      const servers = new LanguageServers(kind === 'bubblewrap' ? { sandbox } : {});
      const tool = createCodeTool({ servers });
      let started = process.hrtime.bigint();
      await call(tool, definition, 'src/math.ts:2:17');
      firstCalls[kind].push(elapsedMs(started));
      started = process.hrtime.bigint();
      await servers.closeAll();
      if (kind === 'bubblewrap') stops.push(elapsedMs(started));
    };
    // Alternating, the first of each pair swapped every round, so both see the same noise.
    for (let index = 0; index < coldRuns; index++) {
      const order = index % 2 === 0 ? (['bubblewrap', 'none'] as const) : (['none', 'bubblewrap'] as const);
      for (const kind of order) await coldStart(kind);
    }

    const servers = new LanguageServers({ sandbox });
    try {
      const tool = createCodeTool({ servers });
      const warm = median(await sample(50, () => call(tool, definition, 'src/math.ts:2:17'), 10));
      const hover = median(await sample(50, () => call(tool, { action: 'hover', path: 'src/main.ts', line: 3, symbol: 'add' }, 'Adds two numbers.'), 10));
      const diagnostics = median(await sample(50, () => call(tool, { action: 'diagnostics', path: 'src/main.ts' }, 'TS2322'), 10));
      const first = median(firstCalls.bubblewrap);
      const unsandboxed = median(firstCalls.none);
      const each = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
      return [
        { name: 'read_file of the same file (floor, median)', value: floor, unit: 'ms' },
        { name: `code definition, first call in bubblewrap: server start to first answer (median of ${coldRuns})`, value: first, unit: 'ms', note: `each ${each(firstCalls.bubblewrap)} ms` },
        { name: `code definition, first call without a sandbox (median of ${coldRuns}, alternating with the above)`, value: unsandboxed, unit: 'ms', note: `each ${each(firstCalls.none)} ms` },
        { name: 'first call: what the sandbox adds (difference of the medians)', value: first - unsandboxed, unit: 'ms' },
        { name: 'code definition, warm, in bubblewrap (median)', value: warm, unit: 'ms', note: `${(warm / floor).toFixed(1)}x the floor` },
        { name: 'code hover, warm (median)', value: hover, unit: 'ms' },
        { name: 'code diagnostics, warm (median)', value: diagnostics, unit: 'ms' },
        { name: `stopping the server in bubblewrap: shutdown, exit (median of ${coldRuns})`, value: median(stops), unit: 'ms' },
      ];
    } finally {
      await servers.closeAll();
    }
  } finally {
    await rm(project, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}
