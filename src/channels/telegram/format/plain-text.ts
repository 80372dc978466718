/**
 * The plain-text form of rendered Telegram HTML: what the person sees, used to measure a chunk
 * (Telegram counts characters after parsing the markup) and as the fallback text when Telegram
 * refuses the markup.
 */
import { decodeEntities } from '../../markdown/decode-entities.ts';

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, '');
}

/** The visible text of Telegram HTML. */
export function visibleText(html: string): string {
  return decodeEntities(stripTags(html));
}

/**
 * The text to send without `parse_mode`: the visible text, with link targets in parentheses
 * when that still fits in `maxLength`.
 */
export function plainTextFallback(html: string, maxLength: number): string {
  const withTargets = decodeEntities(
    stripTags(
      html.replace(/<a href="([^"]*)">([\s\S]*?)<\/a>/g, (whole, href: string, label: string) => {
        const target = decodeEntities(href);
        return visibleText(label) === target ? label : `${label} (${href})`;
      }),
    ),
  );
  return withTargets.length <= maxLength ? withTargets : visibleText(html);
}
