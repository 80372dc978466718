/**
 * The admin console's login counts guesses one by one, also when they come in parallel: each is
 * decided once its body has been read, so guesses that all passed a check made before any was
 * counted (a client uploading its bodies slowly) cannot get the right token past the limit.
 */
import { describe, expect, it } from 'vitest';
import { AdminGate } from '../../src/gateway/admin/admin-gate.ts';

const token = 'the-admin-token-0123456789abcdefghij';
const connection = { clientAddress: '203.0.113.9', https: false };
const page = (status: 401 | 429, problem: string) => new Response(problem, { status });

/** A login request whose body arrives only once `arrive` settles. */
function slowLogin(given: string, arrive: Promise<void>): Request {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      await arrive;
      controller.enqueue(new TextEncoder().encode(`token=${encodeURIComponent(given)}`));
      controller.close();
    },
  });
  return new Request('http://127.0.0.1:7070/admin/login', { method: 'POST', headers: { host: '127.0.0.1:7070', origin: 'http://127.0.0.1:7070', 'content-type': 'application/x-www-form-urlencoded' }, body, duplex: 'half' } as RequestInit);
}

describe('the admin login under parallel guesses', () => {
  it('refuses the right token sent after five wrong ones in parallel, all bodies arriving late', async () => {
    const lines: string[] = [];
    const gate = new AdminGate({ token, log: (line) => lines.push(line) });
    let release = () => undefined as void;
    const arrive = new Promise<void>((resolve) => (release = resolve));
    const guesses = [...Array.from({ length: 11 }, (_, attempt) => `wrong-guess-${attempt}-xxxxxxxxxxxxxxxx`), token];
    const responses = guesses.map((given) => gate.logIn(slowLogin(given, arrive), connection, page));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    const answered = await Promise.all(responses);
    expect(answered.map((response) => response.status)).toEqual([401, 401, 401, 401, ...Array<number>(8).fill(429)]);
    expect(answered.at(-1)!.headers.get('set-cookie')).toBeNull();
    // The client is reported once, when it reached the limit, and no token is in the log.
    expect(lines).toEqual([expect.stringMatching(/too many wrong tokens from 203\.0\.113\.9/)]);
    expect(lines.join('\n')).not.toContain(token);
  });

  it('still lets the right token in when fewer than five guesses were wrong', async () => {
    const gate = new AdminGate({ token });
    const arrive = Promise.resolve();
    for (let attempt = 0; attempt < 4; attempt++) expect((await gate.logIn(slowLogin(`wrong-${attempt}-xxxxxxxxxxxxxxxxxxxx`, arrive), connection, page)).status).toBe(401);
    const answer = await gate.logIn(slowLogin(token, arrive), connection, page);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('set-cookie')).toMatch(/^operator_admin/);
  });
});
