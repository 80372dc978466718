/**
 * The longest chunk the adapter sends, in characters of rendered mrkdwn (escapes included, as
 * Slack counts them). Slack advises at most 4,000 characters of `text`, and a Block Kit
 * `section` holds at most 3,000; at 3,000 every chunk fits the section that carries buttons, so
 * no chunk needs a second layout.
 */
export const slackMaxLength = 3000;
