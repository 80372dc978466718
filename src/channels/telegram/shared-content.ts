/**
 * What a Telegram message shares that is neither text nor a file the model reads: a sticker, a
 * die, a location, a venue, a poll, a contact, a story, a game. Each is said in one short
 * bracketed line (`[sticker 😀]`, `[location 52.52000, 13.40000]`), so the model can answer it (the
 * way to a place, the answer to a quiz, a smile back) like any message; the person's caption, if
 * any, comes first. What people wrote into it (a poll's question, a venue's title) is theirs to
 * say, so it is quoted as it is, on one line.
 */
import type { Message } from 'grammy/types';

/** Coordinates as people read them: five decimals (about a metre: enough to find a door). */
function coordinates(location: { latitude: number; longitude: number }): string {
  return `${location.latitude.toFixed(5)}, ${location.longitude.toFixed(5)}`;
}

/** Text someone wrote, on one line: a line break inside would end the bracketed line early. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A chat as named in a line: `#title`, else `@username`. */
function chatName(chat: { title?: string; username?: string }): string | undefined {
  if (chat.title) return `#${oneLine(chat.title)}`;
  return chat.username ? `@${chat.username}` : undefined;
}

/** The line for what `message` shares, or undefined when it shares none of these. */
export function sharedContentLine(message: Message): string | undefined {
  // A sticker's emoji is what it means; its picture and set say no more to the model.
  if (message.sticker) return `[sticker${message.sticker.emoji ? ` ${message.sticker.emoji}` : ''}]`;
  if (message.dice) return `[dice ${message.dice.emoji} rolled ${message.dice.value}]`;
  if (message.venue) {
    const venue = message.venue;
    const address = venue.address ? `, ${oneLine(venue.address)}` : '';
    return `[venue ${oneLine(venue.title)}${address} (${coordinates(venue.location)})]`;
  }
  if (message.location) return `[${message.location.live_period ? 'live location' : 'location'} ${coordinates(message.location)}]`;
  if (message.poll) {
    const poll = message.poll;
    const options = poll.options.map((option) => oneLine(option.text)).join(' / ');
    return `[${poll.type === 'quiz' ? 'quiz' : 'poll'} "${oneLine(poll.question)}", options: ${options}${poll.is_closed ? ' (closed)' : ''}]`;
  }
  if (message.contact) {
    const contact = message.contact;
    const name = oneLine([contact.first_name, contact.last_name].filter(Boolean).join(' '));
    return `[contact ${name}, ${contact.phone_number}]`;
  }
  if (message.story) {
    const from = chatName(message.story.chat as { title?: string; username?: string });
    return `[story${from ? ` from ${from}` : ''}]`;
  }
  if (message.game) return `[game ${oneLine(message.game.title)}]`;
  return undefined;
}
