/**
 * Buttons as Block Kit: a message with buttons carries its text in a `section` block (mrkdwn,
 * at most 3,000 characters: chunks never exceed that) followed by one `actions` block per row.
 * Each button's `value` is the neutral `data`, its `action_id` unique within the message as Slack
 * requires. Slack takes at most 25 elements per actions block and 50 blocks per message.
 */
import type { Button } from '../types.ts';

/** Prefix of the adapter's `action_id`s (`operator:<row>:<column>`). */
export const actionIdPrefix = 'operator:';

const maxButtonsPerRow = 25;
const maxRows = 49;
/** Slack's limit on a button's label. */
const maxLabelLength = 75;

/** A Block Kit block, as much of it as the adapter writes. */
export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'actions'; block_id: string; elements: { type: 'button'; action_id: string; text: { type: 'plain_text'; text: string; emoji: boolean }; value: string }[] };

function label(text: string): string {
  const trimmed = text.trim() || '…';
  return Array.from(trimmed).length <= maxLabelLength ? trimmed : `${Array.from(trimmed).slice(0, maxLabelLength - 1).join('')}…`;
}

/** The blocks of a message with `mrkdwn` text and rows of buttons (none without buttons). */
export function blocksWithButtons(mrkdwn: string, buttons: Button[][] | undefined): SlackBlock[] | undefined {
  const rows = (buttons ?? []).filter((row) => row.length > 0).slice(0, maxRows);
  if (rows.length === 0) return undefined;
  return [
    { type: 'section', text: { type: 'mrkdwn', text: mrkdwn } },
    ...rows.map((row, rowIndex): SlackBlock => ({
      type: 'actions',
      block_id: `operator_buttons_${rowIndex}`,
      elements: row.slice(0, maxButtonsPerRow).map((button, column) => ({
        type: 'button',
        action_id: `${actionIdPrefix}${rowIndex}:${column}`,
        text: { type: 'plain_text', text: label(button.label), emoji: true },
        value: button.data,
      })),
    })),
  ];
}
