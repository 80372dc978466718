/**
 * Talking to a gateway process through the fake Bot API, as the end-to-end tests of the agent's
 * tools do: a direct message from the admin, a message in a group, the messages that came back,
 * and what the model was sent.
 */
import type { GatewayProcess } from './gateway-process.ts';
import type { TelegramGatewayFakes } from './telegram-gateway-fakes.ts';

/** Someone who writes to the bot. */
export interface TelegramPerson {
  id: number;
  first_name: string;
}

/** The conversation helpers of one gateway: see the file's comment. */
export function telegramChat(options: { fakes: TelegramGatewayFakes; gateway: GatewayProcess; admin: number; group: number; waitMs: number }) {
  const { fakes, gateway, admin, group, waitMs } = options;
  const { telegram, model } = fakes;
  return {
    /** A direct message from the admin. */
    dm: (text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: admin, text, from: { id: admin, first_name: 'Ada' } })),
    /** A message in the group from `from`. */
    inGroup: (text: string, from: TelegramPerson) => telegram.pushUpdate(telegram.textMessage({ chatId: group, text, from })),
    /**
     * The `total` messages the bot sent to `chat` after the first `count`, once there and final (a
     * streamed answer shows as a preview ending in " …" until its last edit); fails with the
     * gateway's output.
     */
    messagesAfter: (chat: number, count: number, total: number) =>
      telegram.waitFor((fake) => {
        const after = fake.messages(chat).slice(count);
        return after.length >= total && !after.some((message) => message.text.endsWith(' …')) && after;
      }, waitMs).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${gateway.output.all()}`);
      }),
    /** The tools offered in the latest model request. */
    lastToolNames: () => ((model.requests.at(-1)!.body.tools ?? []) as { name: string }[]).map((tool) => tool.name),
    /** The messages of the latest model request, as JSON. */
    lastRequest: () => JSON.stringify(model.requests.at(-1)!.body.messages),
  };
}
