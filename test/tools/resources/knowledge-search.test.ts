import { describe, expect, it } from 'vitest';
import { createKnowledgeIndex } from '../../../src/resources/knowledge-index.ts';
import type { KnowledgeIndex } from '../../../src/resources/knowledge-index.ts';
import type { KnowledgeDocument } from '../../../src/resources/types.ts';
import { createKnowledgeSearchTool } from '../../../src/tools/resources/knowledge-search.ts';
import { callTool } from '../tool-harness.ts';

const document = (name: string, text: string): KnowledgeDocument => ({
  name,
  path: `/home/me/.operator/knowledge/${name}`,
  title: name,
  text,
  source: 'home',
});

const index = createKnowledgeIndex([
  document('deploy.md', 'Deploying is easy.\n\n## Rollback\n\nRevert the tag, then redeploy.\n'),
  document('faq.md', '# Database\n\nA rollback of a migration needs a down migration.\n'),
]);

describe('knowledge_search tool', () => {
  it('lists numbered hits as file › heading, path and snippet', async () => {
    const tool = createKnowledgeSearchTool({ getIndex: () => index });
    expect(await callTool(tool, { query: 'rollback' }, { cwd: '/' })).toEqual({
      content:
        '1. deploy.md › Rollback\n   /home/me/.operator/knowledge/deploy.md\n   Revert the tag, then redeploy.\n\n' +
        '2. faq.md › Database\n   /home/me/.operator/knowledge/faq.md\n   A rollback of a migration needs a down migration.',
    });
  });

  it('leaves out the heading of text before any heading and honours the limit', async () => {
    const tool = createKnowledgeSearchTool({ getIndex: () => index });
    expect(await callTool(tool, { query: 'deploying easy', limit: 1 }, { cwd: '/' })).toEqual({
      content: '1. deploy.md\n   /home/me/.operator/knowledge/deploy.md\n   Deploying is easy.',
    });
  });

  it('says plainly when nothing matched', async () => {
    const tool = createKnowledgeSearchTool({ getIndex: () => index });
    expect(await callTool(tool, { query: 'kubernetes' }, { cwd: '/' })).toEqual({ content: 'No knowledge matched "kubernetes".' });
  });

  it('asks for the index on every call, so a reload is seen', async () => {
    let current: KnowledgeIndex = createKnowledgeIndex([]);
    const tool = createKnowledgeSearchTool({ getIndex: () => current });
    expect(await callTool(tool, { query: 'rollback' }, { cwd: '/' })).toEqual({ content: 'No knowledge matched "rollback".' });
    current = index;
    expect((await callTool(tool, { query: 'rollback' }, { cwd: '/' })).content).toMatch(/^1\. deploy\.md › Rollback/);
  });

  it('rejects an empty query and a limit out of range in its schema', () => {
    const tool = createKnowledgeSearchTool({ getIndex: () => index });
    expect(tool.parameters.safeParse({ query: '' }).success).toBe(false);
    expect(tool.parameters.safeParse({ query: 'x', limit: 0 }).success).toBe(false);
    expect(tool.parameters.safeParse({ query: 'x', limit: 21 }).success).toBe(false);
    expect(tool.parameters.safeParse({ query: 'x', limit: 3 }).success).toBe(true);
  });
});
