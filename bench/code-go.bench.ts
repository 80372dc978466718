/**
 * The `code` tool on Go (the machine's gopls and go, in the bubblewrap sandbox as the runtime runs
 * them) on a generated module of 300 packages of 5 files each, each package importing the one
 * before: the first call (server start, module load, first `definition`), then warm `definition`,
 * `hover`, `references` and `diagnostics` on three servers, alternating: as shipped (the module's
 * files listed by the file worker in the sandbox at each call, and gopls told only what changed:
 * here nothing), told at each call that the whole folder changed (what the first call, and a
 * call whose listing fails, does), and never told; then as shipped after one file was written.
 * Also the listing alone, through the worker. The
 * floor is a bare `read_file` of the same file in the same run. No target: the figures are
 * reported.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadFileTool } from '../src/tools/builtin/read-file.ts';
import { FileAccess } from '../src/tools/files/file-access.ts';
import { filesIn } from '../src/tools/files/turn-files.ts';
import { workerLister } from '../src/tools/code/code-files.ts';
import { createCodeTool } from '../src/tools/code/code-tool.ts';
import { findLanguageServers } from '../src/tools/code/installed-servers.ts';
import { LanguageServer } from '../src/tools/code/language-server.ts';
import { LanguageServers } from '../src/tools/code/language-servers.ts';
import type { DocumentReader } from '../src/tools/code/open-documents.ts';
import { goDialect } from '../src/tools/code/server-dialects.ts';
import { installedServerProgram } from '../src/tools/code/server-program.ts';
import { createSandbox } from '../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../src/tools/sandbox/sandbox.ts';
import type { Tool } from '../src/tools/tool.ts';
import { elapsedMs, median, sample, type BenchResult } from './lib.ts';

const packages = 300;
const filesPerPackage = 5;
/** Cold starts measured, each a new server. */
const coldRuns = 3;
/** Warm calls measured of each kind, each variant. */
const warmRuns = 10;
/** Listings measured alone. */
const listingRuns = 30;

/** Open documents read from this process's view of the disk, as the test harness does. */
const diskReader: DocumentReader = {
  async stamp(file) {
    const info = await stat(file, { bigint: true }).catch(() => undefined);
    return info && `${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  },
  read: (file) => readFile(file, 'utf8').catch(() => undefined),
};

async function writeModule(project: string): Promise<void> {
  await writeFile(join(project, 'go.mod'), 'module example.com/big\n\ngo 1.19\n');
  for (let index = 0; index < packages; index++) {
    await mkdir(join(project, `p${index}`));
    for (let file = 0; file < filesPerPackage; file++) {
      const uses = index > 0 ? `import "example.com/big/p${index - 1}"\n\nvar _ = p${index - 1}.F0\n\n` : '';
      await writeFile(join(project, `p${index}`, `f${file}.go`), `package p${index}\n\n${uses}// F${file} adds ${file}.\nfunc F${file}(x int) int {\n\treturn x + ${file}\n}\n`);
    }
  }
  await writeFile(join(project, 'main.go'), `package main\n\nimport "example.com/big/p${packages - 1}"\n\nfunc main() {\n\tp${packages - 1}.F1(2)\n}\n`);
}

export default async function run(): Promise<BenchResult[]> {
  const project = await realpath(await mkdtemp(join(tmpdir(), 'operator-bench-code-go-')));
  const home = await mkdtemp(join(tmpdir(), 'operator-bench-code-go-home-'));
  try {
    await writeModule(project);
    const call = async (tool: Tool, args: Record<string, unknown>, expected: string) => {
      const output = await tool.execute(tool.parameters.parse(args), { signal: new AbortController().signal, cwd: project, toolCallId: 'bench' });
      const text = typeof output === 'string' ? output : String(typeof output.content === 'string' ? output.content : output.content.map((part) => (part.type === 'text' ? part.text : '')).join(''));
      if (!text.includes(expected)) throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
    };
    const floor = median(await sample(30, () => call(createReadFileTool(), { path: 'main.go' }, 'func main'), 5));

    const sandbox = createSandbox(defaultSandboxSettings, { hidden: [home], env: process.env });
    if (sandbox.kind !== 'bubblewrap') throw new Error(`the Go code tool bench needs bubblewrap: ${sandbox.describe()}`);
    const go = (await findLanguageServers({ sandbox, env: process.env })).find((status) => status.kind.id === 'go')!;
    if (go.state !== 'ready') throw new Error(`the Go code tool bench needs gopls and go (apt-get install gopls golang-go): ${go.detail ?? go.state}`);

    const definition = { action: 'definition', path: 'main.go', line: 6, symbol: 'F1' };
    const firstCalls: number[] = [];
    for (let index = 0; index < coldRuns; index++) {
      const servers = new LanguageServers({ sandbox });
      const started = process.hrtime.bigint();
      await call(createCodeTool({ servers }), definition, `p${packages - 1}/f1.go:8:6`);
      firstCalls.push(elapsedMs(started));
      await servers.closeAll();
    }

    // The variants through the server itself, as the tool drives it: the file synced, then asked.
    const start = (dialect: typeof goDialect) =>
      LanguageServer.start({
        root: project,
        spawn: sandbox.programSpec(installedServerProgram(go.path!, { project, roots: [project], language: 'go' }, process.env)),
        dialect,
        parentPid: null,
      });
    const access = new FileAccess({ sandbox, hidden: [home] });
    const lister = workerLister(filesIn(access, 'bench', { cwd: project, roots: [project], writable: false, hidden: [] }));
    const listing = await lister(project, goDialect.toldOfDisk!);
    if (!listing.complete || listing.files.length !== packages * filesPerPackage + 2) throw new Error(`the listing found ${listing.files.length} files`);
    const listings = await sample(listingRuns, () => lister(project, goDialect.toldOfDisk!), 5);
    const variants = { shipped: await start(goDialect), folder: await start(goDialect), untold: await start({ ...goDialect, toldOfDisk: undefined }) };
    type Variant = keyof typeof variants;
    try {
      const main = join(project, 'main.go');
      const first = join(project, 'p0', 'f0.go');
      const at = { line: 5, character: 7 };
      const asks = {
        definition: (server: LanguageServer) => server.definition(main, at),
        hover: (server: LanguageServer) => server.hover(main, at),
        references: (server: LanguageServer) => server.references(first, { line: 3, character: 5 }),
        diagnostics: (server: LanguageServer) => server.diagnostics(main),
      };
      const names = Object.keys(variants) as Variant[];
      const figures: Record<string, Record<Variant, number[]>> = {};
      for (const [name, ask] of Object.entries(asks)) {
        const file = name === 'references' ? first : main;
        // The folder variant is given no lister: told the whole folder at each call.
        const once = async (variant: Variant) => {
          const started = process.hrtime.bigint();
          await variants[variant].open(file, 'go', readFileSync(file, 'utf8'), diskReader, variant === 'shipped' ? lister : undefined);
          await ask(variants[variant]);
          return elapsedMs(started);
        };
        for (const variant of names) await once(variant);
        figures[name] = { shipped: [], folder: [], untold: [] };
        // Alternating, the order rotated every round, so all see the same noise.
        for (let index = 0; index < warmRuns; index++) {
          const order = [...names.slice(index % names.length), ...names.slice(0, index % names.length)];
          for (const variant of order) figures[name]![variant].push(await once(variant));
        }
      }
      // As shipped, after one file in the middle of the chain was written (its body, so its
      // package and the 150 above it are checked again): what a call after an edit pays.
      const edited = join(project, `p${packages / 2}`, 'f2.go');
      const original = readFileSync(edited, 'utf8');
      const afterEdit: number[] = [];
      for (let index = 0; index < warmRuns; index++) {
        await writeFile(edited, original.replace('return x + 2', `return x + ${index % 2 === 0 ? 3 : 2}`));
        const started = process.hrtime.bigint();
        await variants.shipped.open(main, 'go', readFileSync(main, 'utf8'), diskReader, lister);
        await asks.definition(variants.shipped);
        afterEdit.push(elapsedMs(started));
      }
      const each = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
      return [
        { name: 'read_file of main.go (floor, median)', value: floor, unit: 'ms' },
        { name: `code definition, first call in bubblewrap: gopls start and module load to the first answer (median of ${coldRuns})`, value: median(firstCalls), unit: 'ms', note: `each ${each(firstCalls)} ms` },
        { name: `listing of the module's ${listing.files.length} Go files by the file worker (median of ${listingRuns})`, value: median(listings), unit: 'ms', note: `${(median(listings) / floor).toFixed(1)}x the floor` },
        ...Object.entries(figures).flatMap(([name, { shipped, folder, untold }]) => [
          { name: `${name}, warm, as shipped: listed, nothing changed (median of ${warmRuns})`, value: median(shipped), unit: 'ms', note: `${(median(shipped) / floor).toFixed(0)}x the floor, ${(median(shipped) / median(untold)).toFixed(1)}x not told` },
          { name: `${name}, warm, told the whole folder changed (median of ${warmRuns})`, value: median(folder), unit: 'ms', note: `${(median(folder) / median(shipped)).toFixed(0)}x as shipped` },
          { name: `${name}, warm, not told (median of ${warmRuns})`, value: median(untold), unit: 'ms' },
        ]),
        { name: `definition, warm, as shipped, after one file of the 150th package was written (median of ${warmRuns})`, value: median(afterEdit), unit: 'ms', note: `each ${each(afterEdit)} ms` },
      ];
    } finally {
      await Promise.all(Object.values(variants).map((server) => server.stop()));
      access.closeAll();
    }
  } finally {
    await rm(project, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}
