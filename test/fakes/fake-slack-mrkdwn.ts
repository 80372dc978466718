/**
 * The fake's reading of a message as Slack shows it: mrkdwn `text`, or the `section` blocks when
 * the message has blocks (Slack then shows the blocks, not `text`). Formatting marks at word
 * boundaries (`*bold*`, `_italic_`, `~strike~`) are rendered away, `<url|label>` shows its label,
 * `<@U1>` a mention, code blocks (```` ``` ````) their content, and `&amp;`, `&lt;`, `&gt;`
 * their characters, which is all Slack decodes.
 */
import type { FakeSlackMessage } from './fake-slack-state.ts';

/** A message as displayed. */
export interface DisplayedMessage {
  /** The visible text. */
  text: string;
  /** The mrkdwn the display comes from (section texts, or `text`). */
  mrkdwn: string;
  /** Contents of the code blocks, as displayed. */
  codeBlocks: string[];
  /** Buttons of the `actions` blocks, by row. */
  buttons?: { label: string; value: string; actionId: string }[][];
}

function decode(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function unmark(text: string, marker: string): string {
  const escaped = marker.replace(/[*~]/g, '\\$&');
  const pattern = new RegExp(`(^|[\\s(>\\u2022])${escaped}([^\\s${escaped}](?:[^${escaped}\\n]*[^\\s${escaped}])?)${escaped}(?=$|[\\s.,:;!?)'"])`, 'gm');
  return text.replace(pattern, '$1$2');
}

function inlineText(segment: string): string {
  const withoutCode = segment.replace(/`([^`\n]+)`/g, '$1');
  const withoutLinks = withoutCode.replace(/<([^<>|\n]+)(?:\|([^<>\n]*))?>/g, (_whole, target: string, label: string | undefined) => {
    if (target.startsWith('@') || target.startsWith('#')) return `${target[0]}${label ?? target.slice(1)}`;
    if (target.startsWith('!')) return `@${label ?? target.slice(1)}`;
    return label ?? target;
  });
  return decode(['*', '_', '~'].reduce(unmark, withoutLinks));
}

/** How Slack displays `mrkdwn`. */
export function displayMrkdwn(mrkdwn: string): Omit<DisplayedMessage, 'buttons'> {
  const codeBlocks: string[] = [];
  const parts = mrkdwn.split(/```/);
  const text = parts
    .map((part, index) => {
      const isCode = index % 2 === 1 && index < parts.length - 1;
      if (!isCode) return inlineText(part);
      const code = decode(part.replace(/^\n/, '').replace(/\n$/, ''));
      codeBlocks.push(code);
      return code;
    })
    .join('');
  return { text, mrkdwn, codeBlocks };
}

/** How Slack displays a stored message. */
export function displayMessage(message: Pick<FakeSlackMessage, 'text' | 'blocks'>): DisplayedMessage {
  const blocks = message.blocks ?? [];
  const sections = blocks.filter((block) => block.type === 'section').map((block) => String((block.text as { text?: unknown }).text ?? ''));
  const shown = displayMrkdwn(blocks.length > 0 ? sections.join('\n') : message.text);
  const rows = blocks
    .filter((block) => block.type === 'actions')
    .map((block) =>
      (block.elements as Record<string, unknown>[]).map((element) => ({
        label: String((element.text as { text?: unknown }).text ?? ''),
        value: String(element.value ?? ''),
        actionId: String(element.action_id ?? ''),
      })),
    );
  return { ...shown, ...(rows.length > 0 ? { buttons: rows } : {}) };
}
