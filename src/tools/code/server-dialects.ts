/**
 * What differs between the language servers the `code` tool drives, for the client
 * (`language-server.ts`): what `initialize` tells each, the settings it is sent, how a file's
 * diagnostics are had, and what is checked once it started. TypeScript's server is told to run
 * operator's tsserver launcher and no other, and checked to have done so; Python's (`pylsp`) runs
 * pyflakes alone, and Go's (`gopls`) none of its analyzers; both say a file's problems in
 * `textDocument/publishDiagnostics`.
 */
import type { DiskSelection } from './disk-changes.ts';

/** How one kind of server is spoken to. */
export interface ServerDialect {
  /** For messages: `TypeScript` in "the TypeScript language server". */
  language: string;
  /** The `initializationOptions` of `initialize`. */
  initializationOptions: unknown;
  /** Settings sent once after `initialized` (`workspace/didChangeConfiguration`), if any. */
  settings?: unknown;
  /**
   * `tsserver`: asked of tsserver through the server's `typescript.tsserverRequest` command;
   * `published`: what the server last published (`textDocument/publishDiagnostics`) after the
   * file's last change was sent.
   */
  diagnostics: 'tsserver' | 'published';
  /** Whether the server must say (`$/typescriptVersion`) that it runs the tsserver it was told to. */
  checksTypescript: boolean;
  /**
   * For a server that sees files changed on disk only when told, which of its project's files it
   * reads: at each call it is told those made, written and removed since the last
   * (`workspace/didChangeWatchedFiles`, see `disk-changes.ts`), and when anything changed the file
   * asked about is sent again as a new version, whose report ends the wait for its problems.
   */
  toldOfDisk?: DiskSelection;
  /** What the diagnostics are, for "No ... in <file>". */
  problems: string;
}

/** TypeScript's server, told to run `tsserver` (operator's launcher, see `tsserver-launcher.ts`). */
export function typescriptDialect(tsserver: string): ServerDialect {
  return {
    language: 'TypeScript',
    initializationOptions: {
      hostInfo: 'operator',
      // Type acquisition downloads packages from npm: never.
      disableAutomaticTypingAcquisition: true,
      // No plugins of the server's own (tsserver's are off in the launcher).
      plugins: [],
      // operator's tsserver, never the workspace's: given as the setting, which the server
      // takes before looking in the project. One tsserver: the partial "syntax server"
      // answers while the project loads, and its answers then miss other files (a
      // definition lands on the import, not the function).
      tsserver: { path: tsserver, useSyntaxServer: 'never' },
    },
    diagnostics: 'tsserver',
    checksTypescript: true,
    problems: 'syntax or type errors',
  };
}

/** The plugins of pylsp turned off: every one but jedi's navigation and pyflakes. */
const pylspOff = ['pycodestyle', 'mccabe', 'pydocstyle', 'pylint', 'flake8', 'autopep8', 'yapf', 'rope_autoimport', 'rope_completion', 'preload'];

/**
 * Python's `pylsp`: jedi answers definition, references and hover; of its linters pyflakes alone
 * runs (syntax errors, undefined names, unused imports), so the answers do not change with the
 * style checkers a machine happens to have; its settings come from here alone, never from the
 * project's `setup.cfg` or `tox.ini`, nor from a `pylint` or `flake8` it would run from `PATH`.
 */
export const pythonDialect: ServerDialect = {
  language: 'Python',
  initializationOptions: {},
  settings: {
    pylsp: {
      configurationSources: [],
      plugins: { ...Object.fromEntries(pylspOff.map((name) => [name, { enabled: false }])), pyflakes: { enabled: true } },
    },
  },
  diagnostics: 'published',
  checksTypescript: false,
  problems: 'errors pyflakes finds',
};

/**
 * The analyzers of gopls (its `go vet` checks and suggestions), as Debian bookworm's gopls lists
 * them (`gopls api-json`), every one turned off below.
 */
const goplsAnalyzers = [
  'asmdecl', 'assign', 'atomic', 'atomicalign', 'bools', 'buildtag', 'cgocall', 'composites', 'copylocks', 'deepequalerrors', 'embed', 'errorsas',
  'fieldalignment', 'httpresponse', 'ifaceassert', 'infertypeargs', 'loopclosure', 'lostcancel', 'nilfunc', 'nilness', 'printf', 'shadow', 'shift',
  'simplifycompositelit', 'simplifyrange', 'simplifyslice', 'sortslice', 'stdmethods', 'stringintconv', 'structtag', 'testinggoroutine', 'tests',
  'timeformat', 'unmarshal', 'unreachable', 'unsafeptr', 'unusedparams', 'unusedresult', 'unusedwrite', 'useany', 'fillreturns', 'nonewvars',
  'noresultvalues', 'undeclaredname', 'unusedvariable', 'fillstruct', 'stubmethods',
];

/**
 * The settings of gopls: hover without links to pkg.go.dev (there is no network to follow them),
 * no module downloads of its own, and no analyzers, so a file's problems are the compiler's alone
 * (syntax, type and import errors). gopls publishes those as soon as a file is checked and its
 * analyzers' findings in a later round, with nothing to tell the last one: with them on, which
 * round a call saw would decide what it says.
 */
const goplsSettings = {
  linksInHover: false,
  allowImplicitNetworkAccess: false,
  staticcheck: false,
  analyses: Object.fromEntries(goplsAnalyzers.map((name) => [name, false])),
};

/**
 * The files gopls reads from disk: Go sources, the module's and workspace's files, and the vendor
 * folder's list of modules; not below folders that `go list ./...` leaves out (named `testdata`,
 * or starting with `.` or `_`), nor in `node_modules` (gopls's own default filter).
 */
const goFiles: DiskSelection = {
  extensions: ['.go'],
  names: ['go.mod', 'go.sum', 'go.work', 'go.work.sum', 'vendor/modules.txt'],
  skippedFolders: ['testdata', 'node_modules'],
  skippedPrefixes: ['.', '_'],
};

/**
 * Go's `gopls`: given its settings in `initialize` (it keeps them when it then asks for more and is
 * answered none); definition, references and hover are its own, from the packages `go list`
 * loads (see `go-toolchain.ts`). It keeps the files it read from disk until told they changed,
 * and has no file watching of its own: it is told at each call (see `toldOfDisk`).
 */
export const goDialect: ServerDialect = {
  language: 'Go',
  initializationOptions: goplsSettings,
  diagnostics: 'published',
  checksTypescript: false,
  toldOfDisk: goFiles,
  problems: 'compile errors gopls finds',
};

/** How the servers of other languages than TypeScript are spoken to, by language (see `server-kinds.ts`). */
export const otherDialects: Readonly<Record<string, ServerDialect>> = { python: pythonDialect, go: goDialect };
