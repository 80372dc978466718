/**
 * Stand-in language servers for the `code` tool's tests of what goes wrong: Python scripts that
 * speak LSP on stdin and stdout, answer their version argument, `initialize` (with no
 * capabilities) and every other request (with nothing), and exit on `exit`, doing only what the
 * test adds on each message, as a real server would when it misbehaves.
 */

/** What a stand-in does beyond the protocol's minimum. */
export interface StandInServer {
  /** The argument that makes it print {@link version} and exit: `--version`, or `version` (gopls). */
  versionArgument: string;
  version: string;
  /** Python run on every message after the answer to a request, with `message`, `method` and `send(message)` in scope. */
  onMessage?: string;
}

/** The stand-in's script, to write as an executable file. */
export function standInServer(server: StandInServer): string {
  const onMessage = (server.onMessage ?? '').split('\n').filter((line) => line.trim() !== '').map((line) => `    ${line}`);
  return [
    '#!/usr/bin/python3',
    'import json, sys',
    `if sys.argv[1:] == [${JSON.stringify(server.versionArgument)}]:`,
    `    print(${JSON.stringify(server.version)})`,
    '    sys.exit(0)',
    'stdin, stdout = sys.stdin.buffer, sys.stdout.buffer',
    'def send(message):',
    '    body = json.dumps(message).encode()',
    "    stdout.write(b'Content-Length: %d\\r\\n\\r\\n' % len(body) + body)",
    '    stdout.flush()',
    'while True:',
    '    length = 0',
    '    while True:',
    '        line = stdin.readline()',
    '        if not line:',
    '            sys.exit(0)',
    '        if not line.strip():',
    '            break',
    "        name, value = line.split(b':', 1)",
    "        if name.strip().lower() == b'content-length':",
    '            length = int(value)',
    '    message = json.loads(stdin.read(length))',
    "    method = message.get('method')",
    "    if method == 'exit':",
    '        sys.exit(0)',
    "    if 'id' in message and method:",
    "        send({'jsonrpc': '2.0', 'id': message['id'], 'result': {'capabilities': {}} if method == 'initialize' else None})",
    ...onMessage,
    '',
  ].join('\n');
}
