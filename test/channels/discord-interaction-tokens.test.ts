/**
 * Which reply completes a slash command's deferred response: in a channel, only the reply to that
 * command (an answer to someone else's message there must not take another person's command);
 * in a direct message, the oldest; never one past Discord's 15 minutes.
 */
import { describe, expect, it } from 'vitest';
import { InteractionTokens, interactionTokenLifetimeMs } from '../../src/channels/discord/interaction-tokens.ts';

describe('deferred slash command responses', () => {
  it("gives a channel's reply only the deferred response of the command it answers", () => {
    const tokens = new InteractionTokens(() => 0);
    tokens.deferred('channel', 'token-a', 'command-a');
    tokens.deferred('channel', 'token-b', 'command-b');
    expect(tokens.takeDeferred('channel', 'a-message-of-someone-else')).toBeUndefined();
    expect(tokens.takeDeferred('channel', 'command-b')).toBe('token-b');
    expect(tokens.takeDeferred('channel', 'command-b')).toBeUndefined();
    expect(tokens.takeDeferred('channel', 'command-a')).toBe('token-a');
    expect(tokens.size).toBe(0);
  });

  it('gives a reply without a message to answer (a direct message) the oldest, and none that expired', () => {
    let now = 0;
    const tokens = new InteractionTokens(() => now);
    tokens.deferred('dm', 'token-old', 'command-old');
    now = 60_000;
    tokens.deferred('dm', 'token-new', 'command-new');
    expect(tokens.takeDeferred('dm')).toBe('token-old');
    now += interactionTokenLifetimeMs;
    expect(tokens.takeDeferred('dm')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });
});
