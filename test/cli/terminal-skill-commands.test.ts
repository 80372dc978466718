/**
 * Skills as commands in the terminal chat (`operator chat` run for real against the fake model
 * server): `/help` lists the user-invocable skills, `/deploy x` runs a turn whose input holds the
 * skill's instructions and `x`, `-` and `_` both work, the chat's own commands win over a skill of
 * the same name (which start-up names), and `/reload` picks up a new skill.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { spawnOperator, type OperatorProcess } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let server: FakeModelServer;
let home: string | undefined;
let chat: OperatorProcess | undefined;

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await chat?.kill();
  chat = undefined;
  server.reset();
  removeTempHome(home);
  home = undefined;
});

function writeSkill(name: string, frontmatter: string, body: string): void {
  mkdirSync(join(home!, 'skills', name), { recursive: true });
  writeFileSync(join(home!, 'skills', name, 'SKILL.md'), `---\nname: ${name}\n${frontmatter}\n---\n${body}\n`);
}

/** The last text of the person's side of the latest model request. */
function lastInput(): string {
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: string | { type: string; text?: string }[] }[];
  const last = messages.filter((message) => message.role === 'user').at(-1)!;
  return typeof last.content === 'string' ? last.content : last.content.map((part) => part.text ?? '').join('');
}

describe('skills as commands in the terminal chat', () => {
  it('lists them in /help and runs them with the words after the name', async () => {
    home = createTempHome('operator-terminal-skills-');
    writeSkill('deploy-app', 'description: Deploy the web app\nuser-invocable: true', 'APP-STEPS: build, then upload.');
    writeSkill('status', 'description: A skill the chat command hides\nuser-invocable: true', 'HIDDEN');
    writeSkill('notes', 'description: Only the model starts this one', 'NOTES');
    chat = spawnOperator(['chat'], { home, env: fakeAnthropicEnv(server) });
    await chat.output.waitFor(/skill "status" of profile default is not a command/, { stream: 'stderr', label: 'the shadowed skill' });

    chat.send('/help');
    await chat.output.waitFor('/deploy-app');
    const help = chat.output.stdout();
    expect(help).toMatch(/\/deploy-app\s+Deploy the web app/);
    expect(help).not.toContain('A skill the chat command hides');
    expect(help).not.toContain('/notes');

    server.enqueue({ text: 'Deployed the app.' });
    chat.send('/deploy-app canary now');
    await chat.output.waitFor('Deployed the app.');
    expect(chat.output.stdout()).toContain('(running the skill deploy-app)');
    expect(lastInput()).toMatch(/^Run the skill "deploy-app" with: canary now\n\n<skill name="deploy-app" /);
    expect(lastInput()).toContain('APP-STEPS: build, then upload.');

    server.enqueue({ text: 'Deployed again.' });
    chat.send('/deploy_app');
    await chat.output.waitFor('Deployed again.');
    expect(lastInput()).toMatch(/^Run the skill "deploy-app"\.\n\n<skill name="deploy-app" /);

    // The chat's own /status wins: no model call.
    const requests = server.requests.length;
    chat.send('/status');
    await chat.output.waitFor(/model\s+claude/);
    expect(server.requests).toHaveLength(requests);

    // A new skill after /reload.
    writeSkill('roll-back', 'description: Roll back\nuser-invocable: true', 'ROLLBACK-STEPS');
    chat.send('/reload');
    await chat.output.waitFor(/note skill "status" of profile default is not a command/);
    server.enqueue({ text: 'Rolled back.' });
    chat.send('/roll-back v1');
    await chat.output.waitFor('Rolled back.');
    expect(lastInput()).toContain('ROLLBACK-STEPS');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });
});
