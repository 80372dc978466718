/**
 * One outbound Markdown message as the Slack messages to send: split with the shared Markdown
 * chunker so each chunk's rendered mrkdwn fits {@link slackMaxLength}, each chunk rendered.
 */
import { chunkMarkdown } from '../../markdown/chunk-markdown.ts';
import { slackMaxLength } from './max-length.ts';
import { renderSlackMrkdwn } from './render-mrkdwn.ts';

export { slackMaxLength };

/** Splits and renders a Markdown reply for Slack: one mrkdwn text per message. */
export function formatSlackMessage(markdown: string, maxLength: number = slackMaxLength): string[] {
  return chunkMarkdown(markdown, { maxLength, measure: (chunk) => renderSlackMrkdwn(chunk).length })
    .map((chunk) => renderSlackMrkdwn(chunk))
    .filter((mrkdwn) => mrkdwn.trim() !== '');
}
