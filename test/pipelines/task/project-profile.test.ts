/** A workspace's project read from its files (src/pipelines/task/project-profile.ts). */
import { describe, expect, it } from 'vitest';
import { projectProfileOf } from '../../../src/pipelines/task/project-profile.ts';

const reader = (manifests: Record<string, string>) => (path: string) => manifests[path];

describe('the project profile', () => {
  it('reads a TypeScript package: its package manager from the lock file, its tests from the scripts', () => {
    const files = ['package.json', 'pnpm-lock.yaml', 'tsconfig.json', 'src/a.ts', 'src/b.ts', 'scripts/c.js', 'node_modules/x/index.js', 'node_modules/x/y.js', 'node_modules/x/z.js'];
    expect(projectProfileOf(files, reader({ 'package.json': '{"scripts":{"test":"vitest run"}}' }))).toEqual({ language: 'TypeScript', packageManager: 'pnpm', testCommands: ['pnpm test'] });
    expect(projectProfileOf(['package.json', 'yarn.lock', 'index.js'], reader({ 'package.json': '{"scripts":{"test":"jest"}}' }))).toMatchObject({ language: 'JavaScript', packageManager: 'yarn', testCommands: ['yarn test'] });
  });

  it("leaves out npm init's placeholder test script, and a package.json that is not JSON", () => {
    expect(projectProfileOf(['package.json', 'index.js'], reader({ 'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' })).testCommands).toEqual([]);
    expect(projectProfileOf(['package.json'], reader({ 'package.json': '{ not json' }))).toEqual({ language: 'JavaScript', packageManager: 'npm', testCommands: [] });
  });

  it('reads Rust, Go and Python projects, each with its test command', () => {
    expect(projectProfileOf(['Cargo.toml', 'src/main.rs', 'src/lib.rs'], reader({}))).toEqual({ language: 'Rust', packageManager: 'cargo', testCommands: ['cargo test'] });
    expect(projectProfileOf(['go.mod', 'main.go'], reader({}))).toEqual({ language: 'Go', packageManager: 'go', testCommands: ['go test ./...'] });
    expect(projectProfileOf(['pyproject.toml', 'uv.lock', 'app/main.py', 'tests/test_main.py'], reader({ 'pyproject.toml': '[project]\nname = "app"\n' }))).toEqual({ language: 'Python', packageManager: 'uv', testCommands: ['uv run pytest -q'] });
    expect(projectProfileOf(['requirements.txt', 'app.py'], reader({})).testCommands).toEqual([]);
    expect(projectProfileOf(['requirements.txt', 'app.py', 'pytest.ini'], reader({})).testCommands).toEqual(['python3 -m pytest -q']);
  });

  it("adds a Makefile's test target, and tells what it can of a workspace with no manifest", () => {
    expect(projectProfileOf(['Makefile', 'main.c', 'util.c'], reader({ Makefile: 'all:\n\tcc main.c\n\ntest: all\n\t./run-tests\n' }))).toEqual({ language: 'C', packageManager: undefined, testCommands: ['make test'] });
    expect(projectProfileOf(['Makefile'], reader({ Makefile: 'all:\n\ttrue\n' }))).toEqual({ language: undefined, packageManager: undefined, testCommands: [] });
    expect(projectProfileOf([], reader({}))).toEqual({ language: undefined, packageManager: undefined, testCommands: [] });
  });
});
