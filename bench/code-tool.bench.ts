/**
 * The `code` tool on a small TypeScript project (a tsconfig.json and two files, one importing the
 * other): the first call (the language server and its tsserver started, the project loaded, the
 * first `definition` answered), a warm `definition`, `hover` and `diagnostics`, and the stop. The
 * floor is a bare `read_file` of the same file in the same run. No target: the figures are
 * reported.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadFileTool } from '../src/tools/builtin/read-file.ts';
import { createCodeTool } from '../src/tools/code/code-tool.ts';
import { LanguageServers } from '../src/tools/code/language-servers.ts';
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

/** Cold starts measured (each a new server). */
const coldRuns = 3;

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
  try {
    const readFile = createReadFileTool();
    const floor = median(await sample(50, () => call(readFile, { path: 'src/main.ts' }, 'import { add }'), 10));

    const firstCalls: number[] = [];
    const stops: number[] = [];
    for (let index = 0; index < coldRuns; index++) {
      const servers = new LanguageServers();
      const tool = createCodeTool({ servers });
      let started = process.hrtime.bigint();
      await call(tool, definition, 'src/math.ts:2:17');
      firstCalls.push(elapsedMs(started));
      started = process.hrtime.bigint();
      await servers.closeAll();
      stops.push(elapsedMs(started));
    }

    const servers = new LanguageServers();
    try {
      const tool = createCodeTool({ servers });
      const warm = median(await sample(50, () => call(tool, definition, 'src/math.ts:2:17'), 10));
      const hover = median(await sample(50, () => call(tool, { action: 'hover', path: 'src/main.ts', line: 3, symbol: 'add' }, 'Adds two numbers.'), 10));
      const diagnostics = median(await sample(50, () => call(tool, { action: 'diagnostics', path: 'src/main.ts' }, 'TS2322'), 10));
      const first = median(firstCalls);
      return [
        { name: 'read_file of the same file (floor, median)', value: floor, unit: 'ms' },
        { name: `code definition, first call: server start to first answer (median of ${coldRuns})`, value: first, unit: 'ms', note: `each ${firstCalls.map((value) => value.toFixed(0)).join(', ')} ms; ${(first / floor).toFixed(0)}x the floor` },
        { name: 'code definition, warm (median)', value: warm, unit: 'ms', note: `${(warm / floor).toFixed(1)}x the floor` },
        { name: 'code hover, warm (median)', value: hover, unit: 'ms' },
        { name: 'code diagnostics, warm (median)', value: diagnostics, unit: 'ms' },
        { name: `stopping the server: shutdown, exit (median of ${coldRuns})`, value: median(stops), unit: 'ms' },
      ];
    } finally {
      await servers.closeAll();
    }
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}
