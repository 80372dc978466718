/**
 * What a Telegram message shares that is neither text nor a file: a location, a venue, a poll, a
 * contact. Each is said in one bracketed line, so the model can answer it (the way to a place,
 * the answer to a quiz) like any message; the person's caption, if any, comes first.
 */
import type { Message } from 'grammy/types';

/** Coordinates as people read them: five decimals (about a metre). */
function coordinates(location: { latitude: number; longitude: number }): string {
  return `${location.latitude.toFixed(5)}, ${location.longitude.toFixed(5)}`;
}

/** The line for what `message` shares, or undefined when it shares none of these. */
export function sharedContentLine(message: Message): string | undefined {
  if (message.venue) {
    const venue = message.venue;
    const address = venue.address ? `, ${venue.address}` : '';
    return `[a place shared: ${venue.title}${address} (${coordinates(venue.location)})]`;
  }
  if (message.location) {
    const live = message.location.live_period ? ', shared live' : '';
    return `[a location shared: ${coordinates(message.location)}${live}]`;
  }
  if (message.poll) {
    const poll = message.poll;
    const options = poll.options.map((option) => option.text).join(' / ');
    return `[a ${poll.type === 'quiz' ? 'quiz' : 'poll'} shared: "${poll.question}", options: ${options}${poll.is_closed ? ' (closed)' : ''}]`;
  }
  if (message.contact) {
    const contact = message.contact;
    const name = [contact.first_name, contact.last_name].filter(Boolean).join(' ');
    return `[a contact shared: ${name}, ${contact.phone_number}]`;
  }
  return undefined;
}
