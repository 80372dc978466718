/**
 * Slash commands in the terminal chat (`operator chat` run for real against the fake model
 * server): an unknown `/word` is refused with a pointer to /help and the nearest command, and
 * never reaches the model; paths like `/usr/bin ...` and `//`-escaped lines are messages; the
 * chat's own commands and skill commands keep working, in any case.
 */
import { describe, expect, it } from 'vitest';
import { chatSuite } from './chat-under-test.ts';

const suite = chatSuite();

/** The text of the person's last message in the latest model request. */
function lastInput(): string {
  const messages = suite.server().requests.at(-1)!.body.messages as { role: string; content: string | { type: string; text?: string }[] }[];
  const last = messages.filter((message) => message.role === 'user').at(-1)!;
  return typeof last.content === 'string' ? last.content : last.content.map((part) => part.text ?? '').join('');
}

describe('slash commands in the terminal chat', () => {
  it('refuses unknown commands without calling the model, suggesting the nearest one', async () => {
    suite.writeSkill('deploy-app', 'description: Deploy the web app\nuser-invocable: true', 'APP-STEPS');
    const chat = suite.start();

    chat.send('/stauts');
    await chat.output.waitFor('unknown command /stauts (did you mean /status?): /help lists the commands');
    chat.send('/comp');
    await chat.output.waitFor('unknown command /comp (did you mean /compact?)');
    chat.send('/deploy-ap canary');
    await chat.output.waitFor('unknown command /deploy-ap (did you mean /deploy-app?)');
    chat.send('/frobnicate the widgets');
    await chat.output.waitFor(/unknown command \/frobnicate: \/help lists the commands; to send the line to the model as text, start it with \/\/\n/);
    expect(suite.server().requests).toHaveLength(0);

    // Known commands work in any case; /help says how unknown ones are treated.
    chat.send('/STATUS');
    await chat.output.waitFor(/model\s+claude/);
    chat.send('/help');
    await chat.output.waitFor('start a line with // to send it as text');
    expect(suite.server().requests).toHaveLength(0);

    // A skill command still runs its skill.
    suite.server().enqueue({ text: 'Deployed.' });
    chat.send('/deploy-app canary');
    await chat.output.waitFor('Deployed.');
    expect(lastInput()).toMatch(/^Run the skill "deploy-app" with: canary/);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('sends lines that only start with a slash path, and //-escaped lines, to the model', async () => {
    suite.server().enqueue({ text: 'That is the binaries folder.' }, { text: 'Clean it up then.' }, { text: 'A slash.' });
    const chat = suite.start();
    chat.send('/usr/bin is where the binaries live?');
    await chat.output.waitFor('That is the binaries folder.');
    expect(lastInput()).toBe('/usr/bin is where the binaries live?');
    chat.send('//tmp is full');
    await chat.output.waitFor('Clean it up then.');
    expect(lastInput()).toBe('/tmp is full');
    chat.send('/');
    await chat.output.waitFor('A slash.');
    expect(lastInput()).toBe('/');
    expect(chat.output.stdout()).not.toContain('unknown command');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });
});
