/**
 * Many conversations at once through the real gateway process and the fake Bot API: their typing
 * indicators share the platform's budget (`src/gateway/typing-budget.ts`), so a crowd writing at
 * once does not spend the rate limits and the CPU its answers need on indicators; each answer
 * still goes out once.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { typingIndicatorsPerSecond } from '../../src/gateway/typing-budget.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

let fakes: TelegramGatewayFakes | undefined;
let gateway: GatewayProcess | undefined;
afterAll(async () => {
  await gateway?.stop();
  await fakes?.close();
});

const chats = Array.from({ length: 30 }, (_, index) => 7_000 + index);

describe('typing indicators of many conversations at once', () => {
  it('stay within the platform budget while thirty turns wait on the model, and every answer goes out once', async () => {
    fakes = await startTelegramGatewayFakes('operator-typing-budget-');
    gateway = await startTelegramGateway(fakes, chats);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    for (const _chat of chats) fakes.model.enqueue({ text: 'Answered.', holdUntil: held });
    for (const chat of chats) fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: chat, text: `hello from ${chat}`, from: { id: chat, first_name: 'Ada' } }));
    // Every turn is running once its model call arrived; each shows its indicator 0.4 s after it began.
    await vi.waitFor(() => expect(fakes!.model.requests).toHaveLength(chats.length), { timeout: 30_000, interval: 20 });
    await fakes.telegram.waitFor((telegram) => telegram.callsOf('sendChatAction').length > 0, 30_000);
    // Time for every turn's first indicator to fall due (what the budget skips leaves no call to wait for).
    await new Promise((resolve) => setTimeout(resolve, 800));
    release();
    await fakes.telegram.waitFor((telegram) => chats.every((chat) => telegram.messages(chat).some((message) => message.text === 'Answered.')), 30_000);

    for (const chat of chats) expect(fakes.telegram.messages(chat).filter((message) => message.text === 'Answered.')).toHaveLength(1);
    const typing = fakes.telegram.callsOf('sendChatAction');
    const spanSeconds = (typing.at(-1)!.at - typing[0]!.at) / 1000;
    // The budget: its rate at once, then its rate a second (one more for the clocks' rounding).
    expect(typing.length).toBeGreaterThan(0);
    expect(typing.length).toBeLessThanOrEqual(typingIndicatorsPerSecond + Math.ceil(typingIndicatorsPerSecond * spanSeconds) + 1);
  });
});
