/**
 * Code navigation: the `code` tool over the TypeScript language server, Python's pylsp and Go's
 * gopls, the pool of servers it uses and whether they can run here. Loading this module starts
 * nothing and loads no JSON-RPC client: that happens on the first call.
 */
export { codeActions, createCodeTool, type CodeToolOptions } from './code-tool.ts';
export { CodeServerError } from './code-server-error.ts';
export { LanguageServers, type LanguageServersOptions, type RunningServer } from './language-servers.ts';
export type { ServerScope } from './server-program.ts';
export { codeToolAvailable, locateServerInstall, serverInstall, type ServerInstall } from './server-install.ts';
