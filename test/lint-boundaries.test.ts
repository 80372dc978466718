import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function ruleIdsFor(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((message) => message.ruleId ?? message.message);
}

describe('import boundaries (lint)', () => {
  it('refuses gateway, agent, model, tool and session imports in a channel adapter', async () => {
    for (const target of ['../../agent/agent.ts', '../../llm/types.ts', '../../tools/tool.ts', '../../session/session-tree.ts', '../../gateway/gateway.ts', '../../gateway/ops/ops-events.ts']) {
      const ids = await ruleIdsFor(`import type { X } from '${target}';\nexport type Y = X;\n`, 'src/channels/telegram/inbound.ts');
      expect(ids).toContain('no-restricted-imports');
    }
  });

  it('lets a channel adapter import the store and core types', async () => {
    const ids = await ruleIdsFor("import type { Store } from '../../store/store.ts';\nexport type Y = Store;\n", 'src/channels/telegram/inbound.ts');
    expect(ids).toEqual([]);
  });

  it('keeps vendor LLM SDKs inside src/llm/providers', async () => {
    const code = "import Anthropic from '@anthropic-ai/sdk';\nexport const client = Anthropic;\n";
    expect(await ruleIdsFor(code, 'src/agent/engine-x.ts')).toContain('no-restricted-imports');
    expect(await ruleIdsFor(code, 'src/llm/providers/anthropic-x.ts')).toEqual([]);
  });
});
