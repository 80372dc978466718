import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import { AssistantMessageBuilder } from '../../src/llm/providers/assistant-message-builder.ts';

describe('AssistantMessageBuilder', () => {
  it('keeps parts in stream order and leaves unfinished tool calls out of the partial message', () => {
    const builder = new AssistantMessageBuilder('openai', 'm', 1);
    builder.appendThinking('hm');
    builder.appendText('a');
    builder.startToolCall('tool:0', 'c0', 'f');
    builder.appendToolArguments('tool:0', '{"x":');
    builder.appendToolArguments('tool:0', '1}');
    builder.startToolCall('tool:1', 'c1', 'g');
    builder.appendToolArguments('tool:1', '{"y"');
    expect(builder.endToolCall('tool:0')).toEqual({ type: 'tool-call', id: 'c0', name: 'f', arguments: { x: 1 } });
    builder.appendText('b');
    expect(builder.message('aborted')).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'hm' },
        { type: 'text', text: 'a' },
        { type: 'tool-call', id: 'c0', name: 'f', arguments: { x: 1 } },
        { type: 'text', text: 'b' },
      ],
      model: 'm',
      provider: 'openai',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'aborted',
      timestamp: 1,
    });
  });

  it('treats empty arguments as an empty object', () => {
    const builder = new AssistantMessageBuilder('anthropic', 'm');
    builder.startToolCall(0, 'c', 'no_args');
    expect(builder.endToolCall(0)?.arguments).toEqual({});
  });

  it.each(['{"unterminated', '[1,2]', '"text"'])('rejects arguments %s with a retryable ProviderError', (json) => {
    const builder = new AssistantMessageBuilder('anthropic', 'm');
    builder.startToolCall(0, 'c', 'shell');
    builder.appendToolArguments(0, json);
    let thrown: unknown;
    try {
      builder.endToolCall(0);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProviderError);
    expect((thrown as ProviderError).retryable).toBe(true);
    expect((thrown as ProviderError).message).toContain('invalid JSON arguments for tool shell');
  });
});
