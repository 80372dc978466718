export { createSlackChannel, type SlackChannelOptions } from './slack-channel.ts';
export type { RetryPolicy } from './call-slack.ts';
export { formatSlackMessage, slackMaxLength } from './format/format-message.ts';
export { renderSlackMrkdwn } from './format/render-mrkdwn.ts';
export { defaultWebhookPath } from './webhook.ts';
