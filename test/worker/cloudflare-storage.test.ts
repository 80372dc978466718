/**
 * The Worker's KV and R2 bindings through unstorage (`src/worker/cloudflare-storage.ts`): one
 * storage per binding, KV text read back exactly as it was put, and R2 keys kept with their `/`.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { filesStorage, readText, resourcesStorage } from '../../src/worker/cloudflare-storage.ts';
import { r2SlashDriver } from '../../src/worker/r2-slash-driver.ts';

describe('Cloudflare storage through unstorage', () => {
  it('makes one storage per binding, and none without it', () => {
    expect(resourcesStorage(env)).toBe(resourcesStorage({ RESOURCES: env.RESOURCES }));
    expect(filesStorage(env)).toBe(filesStorage({ FILES: env.FILES }));
    expect(resourcesStorage({ RESOURCES: undefined })).toBeUndefined();
    expect(filesStorage({ FILES: undefined })).toBeUndefined();
  });

  it('reads KV text as it was put, whatever it looks like', async () => {
    const storage = resourcesStorage(env)!;
    for (const text of ['42', 'true', '{"format":1}', '{"format":', 'base64:aGVsbG8=', '- an entry\n']) {
      await env.RESOURCES!.put('test:text', text);
      expect(await readText(storage, 'test:text')).toBe(text);
    }
    expect(await readText(storage, 'test:missing')).toBeNull();
    await storage.setItemRaw('test:written', '- kept as is\n');
    expect(await env.RESOURCES!.get('test:written')).toBe('- kept as is\n');
  });

  it('keeps R2 keys with their `/`, the bytes as they are and the content type', async () => {
    const files = filesStorage(env)!;
    const key = 'telegram%3Adm%3A1/telegram%3Aupdate%3A2/1-notes.md';
    const bytes = new TextEncoder().encode('# notes');
    await files.setItemRaw(key, bytes, { httpMetadata: { contentType: 'text/markdown' } });
    const kept = await env.FILES!.get(key);
    expect(kept?.httpMetadata?.contentType).toBe('text/markdown');
    expect(new Uint8Array(await kept!.arrayBuffer())).toEqual(bytes);
    expect(new Uint8Array((await files.getItemRaw<ArrayBuffer>(key))!)).toEqual(bytes);
    expect(await files.getKeys('telegram%3Adm%3A1')).toEqual(['telegram%3Adm%3A1:telegram%3Aupdate%3A2:1-notes.md']);
    await files.removeItem(key);
    expect(await env.FILES!.head(key)).toBeNull();
  });

  it("clears a folder of R2 keys (unstorage's own `clear` reaches a driver only at a mount point)", async () => {
    const driver = r2SlashDriver(env.FILES!);
    await env.FILES!.put('folder%3A1/a/1-x.txt', 'x');
    await env.FILES!.put('folder%3A1/b/1-y.txt', 'y');
    await env.FILES!.put('folder%3A2/a/1-z.txt', 'z');
    await driver.clear!('folder%3A1:', {});
    expect((await env.FILES!.list({ prefix: 'folder%3A' })).objects.map((object) => object.key)).toEqual(['folder%3A2/a/1-z.txt']);
  });
});
